"""The suite's wait for an AppTest run (tests/conftest.py: told by the run's end, not polled) keeps
what AppTest does: a run is waited for until it ends, and a run past its timeout is stopped with
AppTest's own error."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest


def test_a_run_is_waited_for_until_it_ends():
    at = AppTest.from_string("import time\nimport streamlit as st\ntime.sleep(0.3)\nst.write('done')",
                             default_timeout=5).run()
    assert [m.value for m in at.markdown] == ["done"] and not at.exception


def test_a_run_past_its_timeout_is_stopped_with_apptests_error():
    # the loop writes to the page: a stop request takes effect at a script's next Streamlit call
    at = AppTest.from_string("import time\nimport streamlit as st\nwhile True:\n    st.empty()\n    time.sleep(0.01)",
                             default_timeout=0.3)
    with pytest.raises(RuntimeError, match=r"AppTest script run timed out after 0.3\(s\)"):
        at.run()

