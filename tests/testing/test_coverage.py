"""ember.testing.coverage: the op coverage report runs."""
import io


def test_coverage_report_runs():
    from ember.testing import coverage
    buf = io.StringIO()
    have, missing = coverage.report(out=buf)
    assert "erfinv" in have and "cumsum" in have and "ember has:" in buf.getvalue()
    assert "op_db has an OpInfo for" in buf.getvalue()
    tested = coverage.opinfo_names()
    assert {"conv3d", "ctc_loss", "linalg_svd", "bernoulli", "cumsum"} <= tested and "not_an_op" not in tested
