#!/usr/bin/env python3
"""The test files build as a unity build, several to a unit (tests/CMakeLists.txt): a name one file
defines for itself (a helper function, a constant, a struct, an alias) must not be defined by another,
or the two files fail to compile the day they share a unit. This lists every such name.

    unity_names.py TESTS_DIR                  exit 1 and one line per name defined in two files
    unity_names.py --catch-a-planted-one      exit 0 when it finds a name planted in two made-up files

It reads definitions written at the start of a line, outside raw strings (the NumPy scripts inside
R"py(...)py"), and leaves out what doctest's macros declare."""
import collections
import pathlib
import re
import sys
import tempfile

DEFINITIONS = [
    re.compile(r'^(?:static\s+|inline\s+)*(?:constexpr\s+|const\s+)?[\w:<>,*&\s]+?[\s*&](\w+)\s*\((?:[^;]*$|.*\)\s*(?:const\s*)?\{)'),  # a function
    re.compile(r'^(?:static\s+|inline\s+)*(?:constexpr\s+|const\s+)?[\w:<>,*\s]+?[\s*](\w+)\s*(?:=|\{|\[|\(\d)'),  # a variable
    re.compile(r'^(?:constexpr|const)\s[^=(]*?,\s*(\w+)\s*='),  # the second of a list of constants
    re.compile(r'^(?:struct|class|enum(?: class)?)\s+(\w+)\s*[{:]'),
    re.compile(r'^using\s+(\w+)\s*='),
]
NOT_NAMES = {"main", "if", "for", "while", "return", "switch"}


def names_defined(text):
    text = re.sub(r'R"(\w*)\(.*?\)\1"', '""', text, flags=re.S)
    for line in text.splitlines():
        if not line or line[0] in " \t/}#" or line.startswith(("TEST_CASE", "SUBCASE", "namespace")):
            continue
        for pattern in DEFINITIONS:
            m = pattern.match(line)
            if m:
                if m.group(1) not in NOT_NAMES:
                    yield m.group(1)
                break


def clashes(files):
    where = collections.defaultdict(set)
    for f in files:
        for name in names_defined(f.read_text(encoding="utf-8")):
            where[name].add(f.name)
    return {name: sorted(fs) for name, fs in where.items() if len(fs) > 1}


def report(found):
    for name, files in sorted(found.items()):
        print(f"unity_names: {name} is defined in {', '.join(files)}: give each its own name, or share one in a header")
    return 1 if found else 0


def planted():
    with tempfile.TemporaryDirectory() as d:
        a, b = pathlib.Path(d, "test_a.cpp"), pathlib.Path(d, "test_b.cpp")
        a.write_text('namespace {\nint helper(int x) {\n    return x;\n}\n}\nTEST_CASE("a") {}\n')
        b.write_text('namespace {\nstd::string helper(const std::string& s) {\n    return s;\n}\nconst char* py = R"py(\ndef other(x):\n)py";\n}\n')
        found = clashes([a, b])
        return 0 if list(found) == ["helper"] else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--catch-a-planted-one"]:
        sys.exit(planted())
    sys.exit(report(clashes(sorted(pathlib.Path(sys.argv[1]).glob("*.cpp")))))
