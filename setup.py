"""Only the package list; everything else is declared in pyproject.toml.

Every ``vcperf*`` package found in the tree ships (``vcperf.views``, the study subpackages and any
future one), plus ``vcperf._data``: the top-level ``data/`` folder, mapped onto that name by
pyproject's ``[tool.setuptools.package-dir]``. Package discovery (``[tool.setuptools.packages.find]``)
cannot see a package whose folder is mapped elsewhere, and pyproject cannot combine ``find`` with an
extra name, hence these lines.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["vcperf", "vcperf.*"]), "vcperf._data"])
