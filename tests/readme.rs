//! The README's first screen and its `-v` block must stay true.

use std::process::Command;

const README: &str = include_str!("../README.md");
const EXAMPLE_ARGS: [&str; 3] = [
    "--retrieved-from",
    "https://example.com/docs/guide/page.html",
    "fixtures/example/page.html",
];

#[test]
fn the_first_command_is_the_bundled_example() {
    let command = format!("cargo run --release -- {}", EXAMPLE_ARGS.join(" "));
    let first_screen: String = README.lines().take(20).collect::<Vec<_>>().join("\n");
    assert!(
        first_screen.contains(&command),
        "README's first screen lacks `{command}`"
    );
    assert!(
        first_screen.contains("\ncargo test\n"),
        "README's first screen lacks `cargo test`"
    );
}

#[test]
fn the_verbose_lines_are_what_the_example_prints() {
    let block = README
        .split("With `-v`")
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("README has a ```text block after \"With `-v`\"");
    let output = Command::new(env!("CARGO_BIN_EXE_htmlabs"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("-v")
        .args(EXAMPLE_ARGS)
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stderr).unwrap(), block);
}
