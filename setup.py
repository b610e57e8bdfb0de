"""Install the top-level conf/ directory inside the package as bnnsample/conf."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithConf(build_py):
    def run(self):
        super().run()
        src = Path(__file__).parent / "conf"
        for f in src.rglob("*.yaml"):
            dest = Path(self.build_lib) / "bnnsample" / "conf" / f.relative_to(src)
            dest.parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(f), str(dest))


setup(cmdclass={"build_py": BuildWithConf})
