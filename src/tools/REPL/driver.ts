/**
 * The Python side of the REPL, passed to `python3 -u -c`. Protocol: one JSON object per line on the
 * process's original stdin (requests) and stdout (replies). The driver moves both away first, so user code
 * cannot corrupt the framing: fd 0 becomes /dev/null and fd 1 a copy of fd 2, so a subprocess writing to its
 * stdout lands on the REPL process's stderr.
 *
 * Requests: `{"t":"run","id":N,"code":"..."}`, `{"t":"interrupt","id":N}`.
 * Replies: `{"t":"ready","version":"3.x.y"}` once; `{"t":"out","n":"stdout"|"stderr","d":"..."}` while code
 * runs; `{"t":"done","id":N,"value":repr|null,"error":traceback|null,"interrupted":bool}` when it ends.
 *
 * An interrupt arrives on the reader thread, which sends SIGINT to the main thread (a pid namespace makes the
 * pid outside meaningless); the handler raises KeyboardInterrupt only while user code runs.
 */
export const REPL_DRIVER = String.raw`
import ast, codecs, io, json, linecache, os, queue, signal, sys, threading, traceback, types

_proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
_proto_out = os.fdopen(os.dup(1), "wb")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
os.dup2(2, 1)
# The stderr pipe as it was at the start: the end of each run is marked on it (see _run), even if code moves fd 2.
_err_pipe = os.dup(2)
_lock = threading.Lock()

def _send(msg):
    data = (json.dumps(msg) + "\n").encode("utf-8")
    with _lock:
        _proto_out.write(data)
        _proto_out.flush()

class _Stream(io.TextIOBase):
    LIMIT = 8192
    def __init__(self, name):
        self.name, self.parts, self.size, self.other, self._bytes = name, [], 0, None, None
    def writable(self):
        return True
    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not " + type(s).__name__)
        if s:
            # keep the order of stdout and stderr: what the other stream holds goes first
            if self.other is not None and self.other.parts:
                self.other.flush()
            self.parts.append(s)
            self.size += len(s)
            if self.size >= self.LIMIT:
                self.flush()
        return len(s)
    def flush(self):
        if self.parts:
            text, self.parts, self.size = "".join(self.parts), [], 0
            _send({"t": "out", "n": self.name, "d": text})
    @property
    def encoding(self):
        return "utf-8"
    @property
    def buffer(self):
        if self._bytes is None:
            self._bytes = _Bytes(self)
        return self._bytes
    def isatty(self):
        return False

class _Bytes(io.RawIOBase):
    """sys.stdout.buffer: bytes decoded as UTF-8 (a character split across writes is kept for the next)."""
    def __init__(self, text):
        self.text, self.decoder = text, codecs.getincrementaldecoder("utf-8")("replace")
    def writable(self):
        return True
    def write(self, b):
        data = bytes(b)
        self.text.write(self.decoder.decode(data))
        return len(data)
    def flush(self):
        self.text.flush()

_out, _err = _Stream("stdout"), _Stream("stderr")
_out.other, _err.other = _err, _out
# user code gets a __main__ of its own: pickle and friends find its classes there, and it never sees the driver
_user_main = types.ModuleType("__main__")
_user_main.__dict__["__builtins__"] = __builtins__
sys.modules["__main__"] = _user_main
_globals = _user_main.__dict__
_running = False
_main = threading.main_thread().ident
_requests = queue.Queue()

def _on_sigint(signum, frame):
    if _running:
        raise KeyboardInterrupt
signal.signal(signal.SIGINT, _on_sigint)

def _reader():
    for line in _proto_in:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("t") == "interrupt":
            if _running:
                signal.pthread_kill(_main, signal.SIGINT)
        else:
            _requests.put(msg)
    _requests.put(None)

def _format(exc):
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename != "<string>"])
    return "".join(te.format())

def _run(request):
    global _running
    source = request.get("code", "")
    name = "<repl-%s>" % request.get("id")
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    value = error = None
    interrupted = False
    sys.stdout, sys.stderr = _out, _err
    try:
        _running = True
        tree = ast.parse(source, name, "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, name, "exec"), _globals)
        if last is not None:
            result = eval(compile(last, name, "eval"), _globals)
            if result is not None:
                _globals["_"] = result
                value = repr(result)
    except KeyboardInterrupt as exc:
        interrupted = True
        error = _format(exc)
    except SyntaxError as exc:
        error = "".join(traceback.format_exception_only(type(exc), exc))
    except SystemExit as exc:
        error = "SystemExit(%r): the REPL keeps running; exit() and quit() do not end it.\n" % (exc.code,)
    except BaseException as exc:
        error = _format(exc)
    finally:
        _running = False
    try:
        _out.flush()
        _err.flush()
    except BaseException:
        pass
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    # Raw writes to fd 1 and 2 (os.write, a subprocess) travel on the stderr pipe, not with the replies: a marker
    # after them there lets the host wait until it has read all of them before it ends the call.
    try:
        os.write(_err_pipe, b"\0repl-end-%d\0" % (request.get("id") or 0,))
    except BaseException:
        pass
    _send({"t": "done", "id": request.get("id"), "value": value, "error": error, "interrupted": interrupted})

threading.Thread(target=_reader, daemon=True).start()
_send({"t": "ready", "version": "%d.%d.%d" % sys.version_info[:3]})
while True:
    try:
        _request = _requests.get()
        if _request is None:
            break
        _run(_request)
    except KeyboardInterrupt:
        continue
`;
