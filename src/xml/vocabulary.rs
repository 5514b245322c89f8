//! What is a URL in each vocabulary, by namespace URI and local name, never
//! by prefix: data, as the page engine's attribute table is. docs/feeds.md
//! lists the same rows.
//!
//! - Atom 1.0 (RFC 4287): `link/@href`, `content/@src`, `generator/@uri`,
//!   `icon`, `logo`, a person's `uri`; `content`, `summary`, `title`,
//!   `subtitle`, `rights` of `type="html"` hold escaped HTML. Not `id`:
//!   an identity, not a link.
//! - RSS 2.0, in a document whose root is `rss` (its elements have no
//!   namespace, or UserLand's, which feedparser reads as none):
//!   `link`, `comments`, `docs`, `image/url`, `guid` unless
//!   `isPermaLink="false"`, `enclosure/@url`, `source/@url`; `description`
//!   holds HTML, as does `content:encoded` anywhere.
//! - RSS 1.0: `link`; `description` holds HTML; in a document whose root is
//!   `rdf:RDF`, `rdf:about` and `rdf:resource` on any element.
//! - Sitemaps: `loc`, the image extension's `image:loc`, the video
//!   extension's `video:content_loc`, `video:player_loc`,
//!   `video:thumbnail_loc`; `xhtml:link/@href` as XHTML.
//! - SVG: `href`, `xlink:href` (same-document `#id` stays), `style`, and
//!   the text of `<style>`, as CSS.
//! - XHTML, wherever it stands (an Atom `type="xhtml"` div, a sitemap's
//!   `xhtml:link`, a document of its own): the page engine's table, and the
//!   text of `<style>`.
//!
//! - iTunes (podcasts): `itunes:image/@href`; Media RSS: `media:content`,
//!   `media:thumbnail` and `media:player`'s `@url`, what a podcast app or
//!   a feed reader fetches.
//!
//! An `<?xml-stylesheet?>`'s `href` is the document's (`document.rs`);
//! other processing instructions and every other vocabulary (FeedBurner,
//! `wfw:`) are left as they are.

use crate::document::attrs::{Empty, Kind, Table, When};

/// A namespace the rows name, or another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ns {
    /// No namespace.
    None,
    Atom,
    Rss10,
    Rdf,
    Content,
    Sitemap,
    SitemapImage,
    SitemapVideo,
    Xhtml,
    Svg,
    Xlink,
    /// `http://www.w3.org/XML/1998/namespace`, bound to `xml:`.
    Xml,
    /// Apple's podcast tags (`itunes:`).
    Itunes,
    /// Media RSS (`media:`).
    Media,
    Other,
}

const NAMESPACES: &[(&[u8], Ns)] = &[
    (b"http://www.w3.org/2005/Atom", Ns::Atom),
    (b"http://purl.org/rss/1.0/", Ns::Rss10),
    (b"http://www.w3.org/1999/02/22-rdf-syntax-ns#", Ns::Rdf),
    (b"http://purl.org/rss/1.0/modules/content/", Ns::Content),
    (b"http://www.sitemaps.org/schemas/sitemap/0.9", Ns::Sitemap),
    (
        b"http://www.google.com/schemas/sitemap-image/1.1",
        Ns::SitemapImage,
    ),
    (
        b"http://www.google.com/schemas/sitemap-video/1.1",
        Ns::SitemapVideo,
    ),
    (b"http://www.w3.org/1999/xhtml", Ns::Xhtml),
    (b"http://www.w3.org/2000/svg", Ns::Svg),
    (b"http://www.w3.org/1999/xlink", Ns::Xlink),
    (b"http://www.w3.org/XML/1998/namespace", Ns::Xml),
    (b"http://www.itunes.com/dtds/podcast-1.0.dtd", Ns::Itunes),
    (b"http://search.yahoo.com/mrss/", Ns::Media),
];

/// Whether `uri` is one of the namespaces UserLand and Harvard gave RSS
/// 0.9x and 2.0 (`http://backend.userland.com/rss2`), which feedparser
/// reads as RSS's own, by its rule (any case; any UserLand namespace that
/// starts so): their elements are RSS 2.0's, which have no namespace.
fn is_rss_2(uri: &[u8]) -> bool {
    let uri = uri.to_ascii_lowercase();
    memchr::memmem::find(&uri, b"backend.userland.com/rss").is_some()
        || uri == b"http://blogs.law.harvard.edu/tech/rss"
}

impl Ns {
    /// The namespace a name is bound to (`None`: to none).
    pub fn of(uri: Option<&[u8]>) -> Ns {
        match uri {
            None => Ns::None,
            Some(uri) if is_rss_2(uri) => Ns::None,
            Some(uri) => NAMESPACES
                .iter()
                .find(|(known, _)| *known == uri)
                .map_or(Ns::Other, |&(_, ns)| ns),
        }
    }
}

/// The kind of document, by its root element: some rows hold in one only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// `rss`, in no namespace: RSS 0.9x and 2.0.
    Rss,
    /// `rdf:RDF`: RSS 1.0 and 0.90.
    Rdf,
    Other,
}

impl Root {
    pub fn of(ns: Ns, local: &[u8]) -> Root {
        match (ns, local) {
            (Ns::None, b"rss") => Root::Rss,
            (Ns::Rdf, b"RDF") => Root::Rdf,
            _ => Root::Other,
        }
    }
}

/// An element's namespace and local name.
#[derive(Debug, Clone, Copy)]
pub struct Name<'a> {
    pub ns: Ns,
    pub local: &'a [u8],
}

/// What an element's content holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// One URL.
    Url,
    /// HTML, escaped or in CDATA: a document for the page engine.
    Html,
    /// CSS (`<style>`).
    Css,
}

/// What an attribute's value holds: its kind, whether `#id` stays (SVG),
/// and what an empty one names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Value {
    pub kind: Kind,
    pub svg: bool,
    pub empty: Empty,
}

impl Value {
    /// An `xml:base`, read as a value when it sets no base.
    pub const XML_BASE: Value = Value {
        kind: Kind::Url,
        svg: false,
        empty: Empty::Document,
    };
}

/// Where a row holds.
#[derive(Debug, Clone, Copy)]
enum Only {
    Anywhere,
    In(Root),
    /// Only in an element of this local name, of the same namespace.
    Parent(&'static [u8]),
}

use Ns::{
    Atom, Content as ContentNs, Itunes, Media, Rdf, Rss10, Sitemap, SitemapImage, SitemapVideo,
    Svg, Xlink,
};

/// (element's namespace, element, attribute's namespace, attribute, where):
/// an attribute that holds one URL. `*` is every element, of the namespace
/// given or, with none, of any.
type AttributeRow = (Option<Ns>, &'static [u8], Ns, &'static [u8], Only);

const ATTRIBUTES: &[AttributeRow] = &[
    (Some(Atom), b"link", Ns::None, b"href", Only::Anywhere),
    (Some(Atom), b"content", Ns::None, b"src", Only::Anywhere),
    (Some(Atom), b"generator", Ns::None, b"uri", Only::Anywhere),
    (
        Some(Ns::None),
        b"enclosure",
        Ns::None,
        b"url",
        Only::In(Root::Rss),
    ),
    (
        Some(Ns::None),
        b"source",
        Ns::None,
        b"url",
        Only::In(Root::Rss),
    ),
    (None, b"*", Rdf, b"about", Only::In(Root::Rdf)),
    (None, b"*", Rdf, b"resource", Only::In(Root::Rdf)),
    (Some(Svg), b"*", Ns::None, b"href", Only::Anywhere),
    (Some(Svg), b"*", Xlink, b"href", Only::Anywhere),
    // What a podcast app fetches: the show's and an episode's cover, and
    // Media RSS's media, thumbnails and players.
    (Some(Itunes), b"image", Ns::None, b"href", Only::Anywhere),
    (Some(Media), b"content", Ns::None, b"url", Only::Anywhere),
    (Some(Media), b"thumbnail", Ns::None, b"url", Only::Anywhere),
    (Some(Media), b"player", Ns::None, b"url", Only::Anywhere),
];

/// (element's namespace, element, where, content): an element whose
/// content is a URL or a document of its own.
const CONTENTS: &[(Ns, &[u8], Only, Content)] = &[
    (Atom, b"icon", Only::Anywhere, Content::Url),
    (Atom, b"logo", Only::Anywhere, Content::Url),
    (Atom, b"uri", Only::Anywhere, Content::Url),
    (Ns::None, b"link", Only::In(Root::Rss), Content::Url),
    (Ns::None, b"comments", Only::In(Root::Rss), Content::Url),
    (Ns::None, b"docs", Only::In(Root::Rss), Content::Url),
    (Ns::None, b"url", Only::Parent(b"image"), Content::Url),
    (Ns::None, b"guid", Only::In(Root::Rss), Content::Url),
    (Ns::None, b"description", Only::In(Root::Rss), Content::Html),
    (ContentNs, b"encoded", Only::Anywhere, Content::Html),
    (Rss10, b"link", Only::Anywhere, Content::Url),
    (Rss10, b"description", Only::Anywhere, Content::Html),
    (Sitemap, b"loc", Only::Anywhere, Content::Url),
    (SitemapImage, b"loc", Only::Anywhere, Content::Url),
    (SitemapVideo, b"content_loc", Only::Anywhere, Content::Url),
    (SitemapVideo, b"player_loc", Only::Anywhere, Content::Url),
    (SitemapVideo, b"thumbnail_loc", Only::Anywhere, Content::Url),
    (Svg, b"style", Only::Anywhere, Content::Css),
    (Ns::Xhtml, b"style", Only::Anywhere, Content::Css),
];

/// Atom's text constructs and `content`: HTML when `type="html"`.
const ATOM_TEXTS: &[&[u8]] = &[b"content", b"summary", b"title", b"subtitle", b"rights"];

fn holds(only: Only, root: Root, element: Name<'_>, parent: Option<Name<'_>>) -> bool {
    match only {
        Only::Anywhere => true,
        Only::In(r) => r == root,
        Only::Parent(local) => {
            root == Root::Rss && parent.is_some_and(|p| p.ns == element.ns && p.local == local)
        }
    }
}

/// What the attribute `attribute` (its namespace, its local name, its name
/// as written) of `element` holds, if a URL; `value` gives the element's
/// other attributes by name, for the page table's conditions.
pub fn attribute(
    table: &Table,
    root: Root,
    element: Name<'_>,
    attribute: Name<'_>,
    written: &[u8],
    value: impl Fn(&str) -> Option<String>,
) -> Option<Value> {
    if element.ns == Ns::Xhtml {
        // The page engine's own rows, as HTML names them: lowercase.
        let local = element.local.to_ascii_lowercase();
        let name = written.to_ascii_lowercase();
        let row = table.find(&local, &name, |when: When| when.holds(&value))?;
        return Some(Value {
            kind: row.kind,
            svg: false,
            empty: row.empty,
        });
    }
    if element.ns == Svg && attribute.ns == Ns::None && attribute.local == b"style" {
        return Some(Value {
            kind: Kind::Css,
            svg: true,
            empty: Empty::Document,
        });
    }
    ATTRIBUTES
        .iter()
        .find(|&&(ens, elocal, ans, alocal, only)| {
            ens.is_none_or(|ns| ns == element.ns)
                && (elocal == b"*" || elocal == element.local)
                && ans == attribute.ns
                && alocal == attribute.local
                && holds(only, root, element, None)
        })
        .map(|_| Value {
            kind: Kind::Url,
            svg: element.ns == Svg,
            empty: Empty::Document,
        })
}

/// What the content of `element` holds, if anything rewritten; `value`
/// gives its attributes by name (`type`, `isPermaLink`, `src`).
pub fn content(
    root: Root,
    element: Name<'_>,
    parent: Option<Name<'_>>,
    value: impl Fn(&str) -> Option<String>,
) -> Option<Content> {
    let is = |name: &str, expected: &str| {
        value(name).is_some_and(|v| v.trim().eq_ignore_ascii_case(expected))
    };
    if element.ns == Atom && ATOM_TEXTS.contains(&element.local) {
        // A `content` with `src` is empty; `type="xhtml"` is XHTML, read
        // as the XML it is; any other type is no HTML.
        return (is("type", "html") && value("src").is_none()).then_some(Content::Html);
    }
    if element.ns == Ns::None && element.local == b"guid" && is("isPermaLink", "false") {
        return None;
    }
    CONTENTS
        .iter()
        .find(|&&(ns, local, only, _)| {
            ns == element.ns && local == element.local && holds(only, root, element, parent)
        })
        .map(|&(.., content)| content)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(ns: Ns, local: &str) -> Name<'_> {
        Name {
            ns,
            local: local.as_bytes(),
        }
    }

    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn namespaces_are_told_by_their_uri() {
        assert_eq!(Ns::of(Some(b"http://www.w3.org/2005/Atom")), Ns::Atom);
        assert_eq!(Ns::of(Some(b"http://www.w3.org/2005/Atom/")), Ns::Other);
        assert_eq!(Ns::of(Some(b"http://purl.org/atom/ns#")), Ns::Other);
        assert_eq!(Ns::of(None), Ns::None);
        for rss in [
            &b"http://backend.userland.com/rss2"[..],
            b"http://backend.userland.com/rss",
            b"http://backend.userland.com/RSS2.1",
            b"http://blogs.law.harvard.edu/tech/rss",
        ] {
            assert_eq!(Ns::of(Some(rss)), Ns::None);
        }
    }

    #[test]
    fn rss_rows_hold_under_an_rss_root_only() {
        let link = name(Ns::None, "link");
        assert_eq!(content(Root::Rss, link, None, none), Some(Content::Url));
        assert_eq!(content(Root::Other, link, None, none), None);
        let url = name(Ns::None, "url");
        let image = name(Ns::None, "image");
        assert_eq!(
            content(Root::Rss, url, Some(image), none),
            Some(Content::Url)
        );
        assert_eq!(content(Root::Rss, url, Some(link), none), None);
        let guid = name(Ns::None, "guid");
        let not_a_link = |n: &str| (n == "isPermaLink").then(|| " False ".to_owned());
        assert_eq!(content(Root::Rss, guid, None, not_a_link), None);
        assert_eq!(content(Root::Rss, guid, None, none), Some(Content::Url));
    }

    #[test]
    fn atom_texts_are_html_by_their_type() {
        let summary = name(Ns::Atom, "summary");
        let typed = |t: &'static str| move |n: &str| (n == "type").then(|| t.to_owned());
        assert_eq!(
            content(Root::Other, summary, None, typed("html")),
            Some(Content::Html)
        );
        assert_eq!(content(Root::Other, summary, None, typed("text")), None);
        assert_eq!(content(Root::Other, summary, None, typed("xhtml")), None);
        assert_eq!(content(Root::Other, summary, None, none), None);
        assert_eq!(content(Root::Other, name(Ns::Atom, "id"), None, none), None);
    }

    #[test]
    fn attributes_by_namespace_not_prefix() {
        let table = Table::default();
        let url = |element, attribute, root| {
            super::attribute(&table, root, element, attribute, b"", none).map(|v| (v.kind, v.svg))
        };
        let href = name(Ns::None, "href");
        assert_eq!(
            url(name(Ns::Atom, "link"), href, Root::Other),
            Some((Kind::Url, false))
        );
        assert_eq!(url(name(Ns::Other, "link"), href, Root::Other), None);
        assert_eq!(
            url(name(Svg, "use"), name(Xlink, "href"), Root::Other),
            Some((Kind::Url, true))
        );
        assert_eq!(
            url(name(Svg, "use"), name(Ns::Other, "href"), Root::Other),
            None
        );
        let about = name(Rdf, "about");
        assert_eq!(
            url(name(Rss10, "item"), about, Root::Rdf),
            Some((Kind::Url, false))
        );
        assert_eq!(url(name(Svg, "item"), about, Root::Other), None);
        let img = name(Ns::Xhtml, "IMG");
        let v = super::attribute(
            &table,
            Root::Other,
            img,
            name(Ns::None, "srcset"),
            b"srcset",
            none,
        );
        assert_eq!(v.map(|v| v.kind), Some(Kind::Srcset));
    }
}
