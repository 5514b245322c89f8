"""Reads each stylesheet htmlabs rewrote, and the one it read, with tinycss2,
token by token. Usage: python stylesheet_check.py CASES

CASES is a JSON file: a list of {"name", "original", "output"}, paths. Both
are decoded as CSS Syntax says (tinycss2's decode_stylesheet_bytes: a byte
order mark, @charset, else UTF-8) and read as component values, comments
and white space kept. Walking both trees side by side, each URL is a pair
to print: a url token, the string of a url() function, the string or url
after @import, a string that starts an option of image-set() or
-webkit-image-set(). Not an @namespace rule's string or url, a namespace's
name (CSS Namespaces §2: a literal string, never resolved). Every other
token must be the same in both, and the trees the same shape: where they
are not, that is printed, and the check exits 1.

Prints one JSON object a line: {"name", "kind", "original", "output"} for
each URL (the values as tinycss2 reads them, escapes undone)."""

import json
import sys

import tinycss2
from tinycss2.bytes import decode_stylesheet_bytes

IMAGE_SETS = {"image-set", "-webkit-image-set"}


def read(path):
    with open(path, "rb") as f:
        text, _ = decode_stylesheet_bytes(f.read())
    return tinycss2.parse_component_value_list(text, skip_comments=False)


def significant(tokens):
    return [t for t in tokens if t.type not in ("whitespace", "comment")]


class Walk:
    def __init__(self, name):
        self.name = name
        self.mismatches = []

    def url(self, kind, a, b):
        print(json.dumps({"name": self.name, "kind": kind, "original": a, "output": b}))

    def mismatch(self, where, a, b):
        self.mismatches.append(f"{self.name}: {where}: {a.serialize()!r} became {b.serialize()!r}")

    def string_url(self, kind, a, b):
        """A string or a url token that is a URL where it stands."""
        if a.type == "url" and b.type == "url":
            self.url(kind, a.value, b.value)
        elif a.type == "string" and b.type == "string":
            self.url(kind, a.value, b.value)
        elif a.type == "function" and b.type == "function" and a.lower_name == "url":
            self.tokens(a.arguments, b.arguments, url_function=True)
        else:
            self.mismatch(kind, a, b)

    def tokens(self, a_list, b_list, url_function=False, image_set=False):
        if len(a_list) != len(b_list):
            self.mismatches.append(
                f"{self.name}: {len(a_list)} tokens became {len(b_list)}: "
                f"{tinycss2.serialize(a_list)!r} became {tinycss2.serialize(b_list)!r}"
            )
            return
        after_import = False
        in_namespace = False
        option_start = image_set
        for a, b in zip(a_list, b_list):
            if a.type != b.type:
                self.mismatch("a token of another type", a, b)
                continue
            if a.type in ("whitespace", "comment"):
                if a.serialize() != b.serialize():
                    self.mismatch("white space or a comment", a, b)
                continue
            if a.type == "at-keyword":
                in_namespace = a.lower_value == "namespace"
            elif a.type == "{} block" or (a.type == "literal" and a.value == ";"):
                in_namespace = False
            if in_namespace and a.type != "at-keyword":
                # A namespace's name, as it was.
                if a.serialize() != b.serialize():
                    self.mismatch("an @namespace rule", a, b)
            elif url_function and a.type == "string":
                self.url("url()", a.value, b.value)
                url_function = False
            elif after_import and a.type in ("string", "url", "function"):
                self.string_url("@import", a, b)
            elif option_start and a.type == "string":
                self.url("image-set()", a.value, b.value)
            elif a.type == "url":
                self.url("url", a.value, b.value)
            elif a.type == "function":
                if a.lower_name != b.lower_name:
                    self.mismatch("a function", a, b)
                else:
                    self.tokens(
                        a.arguments,
                        b.arguments,
                        url_function=a.lower_name == "url",
                        image_set=a.lower_name in IMAGE_SETS,
                    )
            elif a.type in ("() block", "[] block", "{} block"):
                self.tokens(a.content, b.content)
            elif a.serialize() != b.serialize():
                self.mismatch("a token", a, b)
            after_import = a.type == "at-keyword" and a.lower_value == "import"
            if image_set:
                option_start = a.type == "literal" and a.value == ","


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)
    mismatches = []
    for case in cases:
        walk = Walk(case["name"])
        walk.tokens(read(case["original"]), read(case["output"]))
        mismatches.extend(walk.mismatches)
    if mismatches:
        print("\n".join(mismatches), file=sys.stderr)
        sys.exit(1)


main()
