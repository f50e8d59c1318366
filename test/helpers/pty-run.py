"""Runs a command on a pseudo-terminal and types into it, as a user at a terminal would.

usage: python3 pty-run.py CWD KEYS_JSON -- COMMAND...
KEYS_JSON: [[wait_for, send], ...]: wait until the output (after the previous match) contains
wait_for, then type send. Prints JSON {"status": exit code or "hang", "output": text}; a child
still running 20 s after the last key is killed and reported as "hang".
"""
import json, os, pty, select, sys, time

cwd, keys = sys.argv[1], json.loads(sys.argv[2])
command = sys.argv[sys.argv.index('--') + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.chdir(cwd)
    os.execvp(command[0], command)
out, seen = b'', 0

def pump(timeout):
    global out
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return True
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        return False
    out += chunk
    return bool(chunk)

for wait_for, send in keys:
    pattern, end, found = wait_for.encode(), time.time() + 30, False
    while time.time() < end and not found:
        if not pump(0.2):
            break
        i = out.find(pattern, seen)
        if i >= 0:
            seen, found = i + len(pattern), True
    if not found:
        break
    os.write(fd, send.encode())
status, end = 'hang', time.time() + 20
while time.time() < end:
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        status = os.waitstatus_to_exitcode(st)
        break
    pump(0.2)
if status == 'hang':
    os.kill(pid, 9)
    os.waitpid(pid, 0)
while pump(0):
    pass
print(json.dumps({'status': status, 'output': out.decode(errors='replace')}))
