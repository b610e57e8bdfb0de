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
    """A repository file links into the manual as GitHub reads it (``../../docs/guide/x.md``
    from results/paulin2025-fig4/); in the site docs/ is the root: drop the ``docs/``."""
    uri = page.file.src_uri
    if uri.startswith("results/") or uri == "contributing.md":
        up = "../" * uri.count("/")
        markdown = markdown.replace(f"]({up}docs/", f"]({up}")
    return markdown
