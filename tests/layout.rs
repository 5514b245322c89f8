//! The house's layout: imports in `src/` point down, never in a loop.

mod common;

use std::process::Command;

#[test]
fn src_has_no_import_loops() {
    let Some(shared) = common::shared("src_has_no_import_loops") else {
        return;
    };
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let out = Command::new("python3")
        .arg(shared.join("tools/import-loops"))
        .arg(src)
        .output()
        .expect("python3 runs ../shared/tools/import-loops");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "import loops in src/:\n{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains(", 0 loops"), "{report}");
}
