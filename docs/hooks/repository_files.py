"""MkDocs hook: the committed evidence under results/ (its plots and markdown files) and
CONTRIBUTING.md become part of the site where they are, so that the manual links to them and
embeds the plots without a second copy in docs/. Paths in the site: results/<...> as in the
repository, CONTRIBUTING.md as contributing.md. Their links into docs/, written as GitHub reads
them, are rewritten for the site, where docs/ is the root."""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]  # docs/hooks/ -> the repository
SUFFIXES = (".png", ".md")


def on_files(files, config):
    for path in sorted((ROOT / "results").rglob("*")):
        rel = path.relative_to(ROOT)
        # run folders (git-ignored) hold no evidence the manual links to
        if path.suffix in SUFFIXES and path.is_file() and "runs" not in rel.parts:
            files.append(File.generated(config, rel.as_posix(), abs_src_path=str(path)))
    files.append(File.generated(config, "contributing.md", abs_src_path=str(ROOT / "CONTRIBUTING.md")))
    return files


def on_page_markdown(markdown, page, config, files):
    """Links are written as GitHub reads them, so that the markdown works in the repository too;
    in the site docs/ is the root. A repository file drops the ``docs/`` of its links into the
    manual (``../../docs/guide/x.md`` from results/paulin2025-fig4/), a manual page the ``../``
    of its links out of docs/ (``../results/...``, ``../CONTRIBUTING.md``)."""
    uri = page.file.src_uri
    up = "../" * uri.count("/")
    if uri.startswith("results/") or uri == "contributing.md":
        return markdown.replace(f"]({up}docs/", f"]({up}")
    markdown = markdown.replace(f"](../{up}results/", f"]({up}results/")
    return markdown.replace(f"](../{up}CONTRIBUTING.md", f"]({up}contributing.md")
