"""Shell scripts make temporary files through mktemp: a fixed name under /tmp, written as root,
can be planted beforehand as a link to any file (issue 32, ci_slice.sh)."""

import re

from tests.conftest import REPO

FIXED = re.compile(r"/tmp/[\w.-]+")  # a literal name under /tmp (not a mktemp template's folder)


def test_no_script_writes_a_fixed_name_under_tmp():
    scripts = sorted(REPO.glob("workflow/**/*.sh"))
    assert scripts, "no shell script found"
    for script in scripts:
        for n, line in enumerate(script.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            fixed = [m for m in FIXED.findall(code) if not m.endswith("XXXXXX")]
            assert not fixed, f"{script.relative_to(REPO)}:{n}: fixed temporary name {fixed}"
