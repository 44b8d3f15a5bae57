"""``posecode-ssg export`` (issue 25; docs/export.md): a movement as PNG, SVG, contact sheet, GIF,
video, BVH or glTF. The shared contract is :mod:`posecode_ssg.export.core`."""

from posecode_ssg.export.core import (
    WRITERS,
    ExportDoc,
    ExportError,
    ExportOptions,
    ExportSession,
    ExportUnavailable,
    atomic_output,
    frame_index,
    frame_time,
    load_documents,
    write_atomic,
    writer,
)

__all__ = ["WRITERS", "ExportDoc", "ExportError", "ExportOptions", "ExportSession", "ExportUnavailable",
           "atomic_output", "frame_index", "frame_time", "load_documents", "write_atomic", "writer"]
