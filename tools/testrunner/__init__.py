"""Helpers behind ``tools/run_test.py``, ember's test runner.

One idea per module:

* :mod:`testrunner.selection`  -- which test files run (groups, include/exclude, env, serial scan)
* :mod:`testrunner.target_determination` -- ``--changed-first`` ordering from a git diff
* :mod:`testrunner.sharding`   -- splitting files over shards by recorded durations
* :mod:`testrunner.execution`  -- one pytest subprocess per file, timeouts, the single retry
* :mod:`testrunner.reporting`  -- JUnit XML parsing, live lines, the closing summary line
* :mod:`testrunner.pytest_plugin` -- loaded into each pytest subprocess with ``-p``; records
  every test's node id and marker names as JUnit ``<property>`` elements
"""
