"""The package's exceptions. Each carries the command line's one-line
message (what ``htmlabs`` prints after ``htmlabs: error:``)."""


class Error(Exception):
    """Anything htmlabs refuses or cannot do."""


class ConfigError(Error, ValueError):
    """A value that cannot be used (a relative ``retrieved_from``, an
    unknown encoding label, a bad ``attr``, header fields that are not a
    header): said before anything is read."""


class ReadError(Error, OSError):
    """The input cannot be opened or read."""


class WriteError(Error, OSError):
    """The output cannot be written. A path is written through a temporary
    file beside it: after this error it holds what it held before."""


for _class in (Error, ConfigError, ReadError, WriteError):
    _class.__module__ = "htmlabs"
