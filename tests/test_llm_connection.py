"""The LLM connection against small local servers: hostile replies bounded in time and memory, TLS
trust and its setting, redirects (same host followed, another host refused without the key), Azure."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rageval.llm.client import make_llm_client
from tests.llm_servers import (
    CHAT_REPLY, LocalServer, chat_ok, drip, endless_chunked, huge_body, lying_length, self_signed, send_json,
    server_tls,
)

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-test-SECRET-77aa01bc"
USER = [{"role": "user", "content": "hello"}]

#: run in a child process, so its peak memory is the client's alone
CHILD = """
import json, sys, time
from rageval.llm.client import make_llm_client
out = {}
# the size cases get a deadline they cannot reach on a loaded machine, so the size limit is what ends them
deadlines = {"huge": "120", "endless": "120", "drip": "3", "lying": "3"}
for name, url in json.loads(sys.argv[1]).items():
    env = {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "k", "RAGEVAL_LLM_DEADLINE": deadlines[name],
           "RAGEVAL_LLM_MAX_REPLY_MB": "4"}
    with make_llm_client({"judge": "openai:m"}, env=env, use_cache=False, max_retries=3, backoff_base=0.01) as llm:
        start = time.monotonic()
        reply = llm.chat("judge", [{"role": "user", "content": "hi"}])
        out[name] = {"status": reply.status, "reason": reply.reason, "error": reply.error,
                     "attempts": reply.attempts, "seconds": time.monotonic() - start}
# this process's own high-water mark (VmHWM starts anew at exec; ru_maxrss keeps the forking parent's)
status = open("/proc/self/status").read()
out["peak_mb"] = int(status.split("VmHWM:")[1].split()[0]) / 1024
print(json.dumps(out))
"""


def test_hostile_replies_fail_their_item_within_the_deadline_in_bounded_memory():
    handlers = {"huge": huge_body, "endless": endless_chunked, "drip": drip, "lying": lying_length}
    servers = {name: LocalServer(handle) for name, handle in handlers.items()}
    for server in servers.values():
        server.__enter__()
    try:
        urls = {name: server.url() + "/v1" for name, server in servers.items()}
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(urls)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
    finally:
        for server in servers.values():
            server.__exit__()
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    for name in ("huge", "endless"):  # cut off at 4 MB, not retried
        assert out[name]["status"] == "failed" and out[name]["reason"] == "llm_error: reply too large", out[name]
        assert "4 MB" in out[name]["error"] and "RAGEVAL_LLM_MAX_REPLY_MB" in out[name]["error"]
        assert out[name]["attempts"] == 1
    for name in ("drip", "lying"):  # each read gets data (drip) or waits within the 60 s read timeout (lying)
        assert out[name]["status"] == "failed" and out[name]["reason"] == "llm_error: deadline", out[name]
        assert "3 s" in out[name]["error"] and "RAGEVAL_LLM_DEADLINE" in out[name]["error"]
        assert out[name]["attempts"] == 1
    # each item ended by its limit, not by the server (the servers run 20 s to hours); how soon after the
    # 3 s deadline is a speed, measured in bench/, not asserted here (a loaded machine stretches it)
    assert out["peak_mb"] < 300, out


def test_a_reply_under_the_limits_is_read_whole(tmp_path):
    with LocalServer(chat_ok) as server:
        env = {"OPENAI_BASE_URL": server.url() + "/v1", "OPENAI_API_KEY": KEY}
        with make_llm_client({"judge": "openai:m"}, env=env, use_cache=False) as llm:
            reply = llm.chat("judge", USER)
    assert reply.status == "ok" and reply.text == "fine"
    method, path, headers = server.requests[0]
    assert (method, path) == ("POST", "/v1/chat/completions")
    assert headers["authorization"] == f"Bearer {KEY}" and headers["user-agent"].startswith("OpenAI/Python")


def test_a_self_signed_certificate_names_certificates_and_the_setting_and_works_once_trusted(tmp_path):
    ca, cert, key = self_signed(tmp_path)
    with LocalServer(chat_ok, tls=server_tls(cert, key)) as server:
        env = {"OPENAI_BASE_URL": server.url(scheme="https") + "/v1", "OPENAI_API_KEY": KEY}
        with make_llm_client({"judge": "openai:m"}, env=env, use_cache=False, max_retries=3) as llm:
            untrusted = llm.chat("judge", USER)
            again = llm.chat("judge", USER)
        with make_llm_client({"judge": "openai:m"}, env={**env, "RAGEVAL_LLM_CA_BUNDLE": str(ca)},
                             use_cache=False) as llm:
            trusted = llm.chat("judge", USER)
    assert untrusted.status == "failed" and untrusted.reason == "llm_error: certificate"
    assert "certificate" in untrusted.error and "RAGEVAL_LLM_CA_BUNDLE" in untrusted.error
    assert untrusted.attempts == 1  # no retry trusts a certificate
    assert again.reason == "llm_error: certificate" and again.attempts == 0  # the role fails fast
    assert trusted.status == "ok" and trusted.text == "fine"


def test_a_ca_bundle_that_is_not_certificates_is_a_config_error(tmp_path):
    from rageval.errors import ConfigError

    bad = tmp_path / "ca.pem"
    bad.write_text("not a certificate")
    env = {"OPENAI_BASE_URL": "https://127.0.0.1:9/v1", "RAGEVAL_LLM_CA_BUNDLE": str(bad)}
    with make_llm_client({"judge": "openai:m"}, env=env, use_cache=False) as llm:
        with pytest.raises(ConfigError, match="RAGEVAL_LLM_CA_BUNDLE"):
            llm.chat("judge", USER)


def test_a_same_host_redirect_is_followed_with_the_key():
    def moved(handler):
        if handler.path.startswith("/old/"):
            handler.send_response(307)
            handler.send_header("Location", handler.path.replace("/old/", "/v1/", 1))
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        else:
            chat_ok(handler)

    with LocalServer(moved) as server:
        env = {"OPENAI_BASE_URL": server.url() + "/old", "OPENAI_API_KEY": KEY}
        with make_llm_client({"judge": "openai:m"}, env=env, use_cache=False) as llm:
            reply = llm.chat("judge", USER)
    assert reply.status == "ok" and reply.text == "fine"
    assert [(m, p) for m, p, _ in server.requests] == [("POST", "/old/chat/completions"),
                                                       ("POST", "/v1/chat/completions")]
    assert server.requests[1][2]["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("azure", [False, True])
def test_a_redirect_to_another_host_is_refused_and_never_carries_the_key(azure):
    with LocalServer(chat_ok) as elsewhere:
        def away(handler):
            handler.send_response(307)
            handler.send_header("Location", elsewhere.url(host="localhost") + handler.path)
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        with LocalServer(away) as server:
            env = ({"AZURE_OPENAI_ENDPOINT": server.url(), "AZURE_OPENAI_API_KEY": KEY} if azure
                   else {"OPENAI_BASE_URL": server.url() + "/v1", "OPENAI_API_KEY": KEY})
            with make_llm_client({"judge": "openai:m"}, env=env, use_cache=False, max_retries=3) as llm:
                reply = llm.chat("judge", USER)
    assert reply.status == "failed" and reply.reason == "llm_error: redirected to another host"
    assert "localhost" in reply.error and KEY not in reply.error
    assert elsewhere.requests == [] and len(server.requests) == 1  # refused at once, not retried


def test_an_azure_endpoint_gets_the_api_key_header_and_the_api_version():
    def azure(handler):
        path, _, query = handler.path.partition("?")
        if handler.headers.get("api-key") != KEY or query != "api-version=2024-06-01":
            send_json(handler, {"error": {"message": "wrong key or version", "code": "bad"}}, 401)
        elif path == "/openai/deployments/my-gpt/chat/completions":
            send_json(handler, CHAT_REPLY)
        else:
            send_json(handler, {"error": {"message": f"no deployment at {path}"}}, 404)

    with LocalServer(azure) as server:
        env = {"AZURE_OPENAI_ENDPOINT": server.url(), "AZURE_OPENAI_API_KEY": KEY, "OPENAI_API_KEY": "sk-other-one",
               "OPENAI_API_VERSION": "2024-06-01"}
        with make_llm_client({"judge": "openai:my-gpt"}, env=env, use_cache=False) as llm:
            reply = llm.chat("judge", USER)
    assert reply.status == "ok" and reply.text == "fine", reply.error
    assert "authorization" not in server.requests[0][2]  # the key goes only in api-key


def test_an_offline_client_loads_no_openai_package():
    code = ("import sys; from rageval.llm.client import make_llm_client; "
            "assert make_llm_client({'judge': 'heuristic'}) is None; "
            "print(sorted(m for m in ('openai', 'httpx2', 'httpcore2', 'rageval.llm.bounded') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "ALL_PROXY"])
def test_proxies_come_from_the_environment_as_httpx_reads_them(variable, monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    with LocalServer(chat_ok) as proxy:
        monkeypatch.setenv(variable, proxy.url())
        env = {"OPENAI_BASE_URL": "http://llm.example.invalid:8000/v1", "OPENAI_API_KEY": KEY}
        with make_llm_client({"judge": "openai:m"}, env=env, use_cache=False) as llm:
            reply = llm.chat("judge", USER)
        assert reply.status == "ok" and reply.text == "fine", reply.error
        assert proxy.requests[0][:2] == ("POST", "http://llm.example.invalid:8000/v1/chat/completions")
        monkeypatch.setenv("NO_PROXY", "llm.example.invalid")  # bypassed: straight to the (unknown) host
        with make_llm_client({"judge": "openai:m"}, env=env, use_cache=False, max_retries=0) as llm:
            bypassed = llm.chat("judge", USER)
        assert bypassed.status == "failed" and len(proxy.requests) == 1


def test_a_compressed_reply_is_refused_unread_as_its_size_could_not_be_bounded():
    import gzip

    bomb = gzip.compress(b" " * (64 << 20))  # 64 MB of spaces in about 64 kB

    def compressed(handler):
        handler.send_response(200)
        for name, value in {"Content-Type": "application/json", "Content-Encoding": "gzip",
                            "Content-Length": str(len(bomb))}.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(bomb)

    with LocalServer(compressed) as server:
        env = {"OPENAI_BASE_URL": server.url() + "/v1", "OPENAI_API_KEY": KEY, "RAGEVAL_LLM_MAX_REPLY_MB": "1"}
        with make_llm_client({"judge": "openai:m"}, env=env, use_cache=False, max_retries=3) as llm:
            reply = llm.chat("judge", USER)
    assert reply.status == "failed" and reply.reason == "llm_error: compressed reply" and reply.attempts == 1
    assert server.requests[0][2]["accept-encoding"] == "identity"
