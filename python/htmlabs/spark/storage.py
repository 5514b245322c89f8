"""Paths local or remote: a local path (or ``file://``) through the OS, any
other (``s3://``, ``gs://``, ``hdfs://``…) through fsspec, so that a
Python worker reads and writes its files itself, with no Hadoop client."""

from __future__ import annotations

import os
import posixpath

import htmlabs


def is_local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def local(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path


def join(directory: str, name: str) -> str:
    if is_local(directory):
        return os.path.join(local(directory), name)
    return posixpath.join(directory, name)


def filesystem(path: str):
    """fsspec's filesystem for a remote path, and the path within it."""
    try:
        import fsspec
    except ImportError:
        raise htmlabs.ConfigError(f"a remote path needs fsspec (pip install fsspec): `{path}`") from None
    return fsspec.core.url_to_fs(path)


def open_file(path: str, mode: str):
    if is_local(path):
        return open(local(path), mode)
    fs, inner = filesystem(path)
    return fs.open(inner, mode)


def rename(source: str, target: str) -> None:
    if is_local(target):
        os.replace(local(source), local(target))
    else:
        fs, inner = filesystem(source)
        fs.mv(inner, filesystem(target)[1])


def remove(path: str) -> None:
    try:
        if is_local(path):
            os.remove(local(path))
        else:
            fs, inner = filesystem(path)
            fs.rm(inner)
    except Exception:
        pass  # never written, or already gone


def makedirs(path: str) -> None:
    if is_local(path):
        os.makedirs(local(path), exist_ok=True)
    else:
        fs, inner = filesystem(path)
        fs.makedirs(inner, exist_ok=True)
