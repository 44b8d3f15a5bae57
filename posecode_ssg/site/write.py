"""Writing the site: into a staging folder beside the output, swapped in at the end (atomic),
or file by file into the output folder (the dev server's in-place mode)."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from posecode_ssg.site.result import BuildError


class InStaging:
    """Marks an output a page worker has already written into the staging folder."""

    def __repr__(self) -> str:
        return "<written by a page worker>"


IN_STAGING = InStaging()


def place(data: bytes | Path, target: str | Path, made: set[str]) -> None:
    """Write ``data`` (bytes, or a file to hard-link, copied when linking fails) to ``target``,
    creating its folder unless it is in ``made`` (folders created so far)."""
    folder = os.path.dirname(target)
    if folder not in made:
        os.makedirs(folder, exist_ok=True)
        made.add(folder)
    if isinstance(data, Path):
        try:
            os.link(data, target)
        except OSError:
            shutil.copyfile(data, target)
    else:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            view = memoryview(data)
            while view:  # os.write may write less than asked
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)


class Writing:
    """The writing steps of :class:`posecode_ssg.site.build._Build` (``self.outputs``: site
    path -> bytes, a file to hard-link, or :data:`IN_STAGING`)."""

    def _write(self) -> None:
        if self.in_place and self.old_outputs is not None and self.out.is_dir():
            self._write_in_place(self.old_outputs)
            return
        out = self.out
        parent = out.parent
        staging = self._staging()
        try:
            made: set[str] = set()
            for dest in sorted(self.outputs):
                data = self.outputs[dest]
                if data is not IN_STAGING:
                    place(data, f"{staging}/{dest}", made)
            if self.page_workers is not None and self.page_workers.busy:
                self.page_workers.gather()  # their pages are in staging now
            old = parent / f".{out.name}.old-{os.getpid()}"
            if out.exists():
                os.rename(out, old)
                os.rename(staging, out)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(staging, out)
        except OSError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise BuildError(f"cannot write the site to {out}: {exc}") from None
        except BaseException:  # Ctrl-C mid-write: leave no half-built folder behind
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self.result.written = True

    def _staging(self) -> Path:
        """The folder the new site is written to, beside the output (created once, empty)."""
        if self.staging is None:
            parent = self.out.parent
            try:
                parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise BuildError(f"cannot create the output folder's parent {parent}: {exc.strerror}") from None
            staging = parent / f".{self.out.name}.building-{os.getpid()}"
            if staging.exists():
                shutil.rmtree(staging)
            try:
                staging.mkdir()
            except OSError as exc:
                raise BuildError(f"cannot write the site to {self.out}: {exc}") from None
            self.staging = staging
        return self.staging

    def _write_in_place(self, old_outputs: dict) -> None:
        """Update the output folder file by file (see ``build_site(in_place=True)``): each new
        or changed file is written to a temporary name beside its target and renamed over it;
        files whose bytes are unchanged keep their inode and time stamps; files the previous
        build wrote and this one does not are deleted (and folders left empty)."""
        out = self.out
        pid = os.getpid()
        try:
            made: set[str] = set()
            for dest in sorted(self.outputs):
                data = self.outputs[dest]
                target = out / dest
                if isinstance(data, Path):
                    if data == target:
                        continue  # kept from the previous build
                    try:
                        if os.path.samefile(data, target):
                            continue
                    except OSError:
                        pass
                elif dest in old_outputs:
                    try:
                        if os.stat(target).st_size == len(data) and target.read_bytes() == data:
                            continue
                    except OSError:
                        pass
                tmp = target.parent / f".{target.name}.tmp-{pid}"
                place(data, tmp, made)
                os.replace(tmp, target)
            for dest in sorted(set(old_outputs) - set(self.outputs), reverse=True):
                target = out / dest
                with contextlib.suppress(FileNotFoundError):
                    target.unlink()
                folder = target.parent
                while folder != out and folder.is_relative_to(out):
                    try:
                        folder.rmdir()  # only succeeds when empty
                    except OSError:
                        break
                    folder = folder.parent
        except OSError as exc:
            raise BuildError(f"cannot write the site to {out}: {exc}") from None
        self.result.written = True
