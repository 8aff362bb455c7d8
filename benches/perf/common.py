"""Shared by the perf benches: one timed spawn of a binary (its stdout captured
through a pipe, its CPU and peak RSS from wait4), so every script measures a
call the same way."""
import os, time


def spawn(binary, args, env, cwd=None):
    """wall seconds, cpu seconds (user+sys), stdout bytes, exit code, peak RSS (KiB)."""
    r, w = os.pipe()
    t0 = time.perf_counter()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        pid = os.posix_spawn(binary, [binary, *args], env,
                             file_actions=[(os.POSIX_SPAWN_DUP2, w, 1), (os.POSIX_SPAWN_CLOSE, r)])
    finally:
        os.chdir(old)
    os.close(w)
    out = b""
    while chunk := os.read(r, 1 << 20):
        out += chunk
    os.close(r)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    return wall, ru.ru_utime + ru.ru_stime, out, os.waitstatus_to_exitcode(status), ru.ru_maxrss
