"""pytest plugin the runner loads into every per-file subprocess (``-p testrunner.pytest_plugin``).

It attaches two JUnit properties to every collected test item:

* ``nodeid``  -- the exact pytest node id, so the runner can re-run a failed test by id
  (reconstructing ids from JUnit ``classname``/``name`` is ambiguous);
* ``markers`` -- the comma-separated, sorted names of the item's markers (``parity``,
  ``slow``, ``serial``, ...), so the runner can tell how many parity tests were selected and
  how many of them were skipped (``--require-parity``).

pytest's junitxml writes ``item.user_properties`` into ``<testcase><properties>`` for every
JUnit family, so nothing else is needed.
"""

NODEID_PROPERTY = "nodeid"
MARKERS_PROPERTY = "markers"


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        names = sorted({mark.name for mark in item.iter_markers()})
        item.user_properties.append((NODEID_PROPERTY, item.nodeid))
        item.user_properties.append((MARKERS_PROPERTY, ",".join(names)))
