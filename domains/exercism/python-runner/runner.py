"""Runs a Python exercise's unittest tests for grading, and reports each test's outcome to the grader only.

Usage: python3 -s -P -B runner.py TEST_FILE... with the grading copy as the working directory and the
grading's secret token on standard input. Standard output ends with one line, `<token> <report>`, where
the report is JSON: {"tests": [{"name", "passed", "message"}], "tampering": [...]}. Test names are
`<file>::<class>::<method>` (or `<file>::<function>` for a test function).

The solution runs in this process, so what decides a test's outcome is kept where its code cannot reach,
or cannot change unseen:
- the token, the outcomes and the checks live only in the closure of an audit hook (sys.addaudithook),
  which no Python code can list or remove; the hook writes the report itself and ends the process, so
  nothing runs after it;
- the runner tells the hook what happens through audit events, which count only when raised on the main
  thread with nothing but the runner's, unittest's, contextlib's, traceback's and the tests' own code on
  the stack;
- a test passes only when its setUp, test method and tearDown returned and unittest reported exactly one
  success for it and nothing else;
- the hook refuses what would reach its memory or the grading machinery (gc's object lists, ctypes,
  /proc, other audit hooks, tracing and profiling, native modules outside /usr, links), and frames and
  the tests' code objects while the solution is on the stack (so it cannot read expected values);
- the dictionaries of the grading modules and classes are watched through their version tags, which
  change on every write: a patch is seen even when it was undone before the check;
- TestCase's methods become data descriptors (an instance attribute cannot shadow them), and once an
  equality assertion passed the hook compares its two values again as plain data (an answer object whose
  own __eq__ agrees with a plain expected value is caught);
- the test files are read before any solution code runs and deleted from the working directory.
"""

import sys

# Everything the runner and the hook use is imported before any solution code runs.
import _thread
import contextlib
import ctypes
import ctypes.util
import decimal
import dis
import fractions
import gc
import importlib
import importlib.abc
import importlib.machinery
import os
import types
import unittest
import unittest.mock

EVENT = 'exercism.python.'
#: Where a dict's ma_version_tag is (after the refcount, the type and ma_used): CPython 3.6 to 3.12.
DICT_VERSION_OFFSET = 24
#: Modules whose code decides outcomes: trusted on the stack, and their dictionaries watched.
GRADING_MODULES = [m for n, m in sorted(sys.modules.items()) if n == 'unittest' or n.startswith('unittest.')]
GRADING_MODULES += [contextlib, fractions, decimal]
#: TestCase methods whose return the hook must see before a test can pass (unittest swallows _ShouldStop).
STEPS = ('_callSetUp', '_callTestMethod', '_callTearDown')
#: Equality assertions the hook checks again, by the kind of check.
CHECKED = {
    'assertEqual': 'eq', 'assertEquals': 'eq', 'assertListEqual': 'eq', 'assertTupleEqual': 'eq',
    'assertDictEqual': 'eq', 'assertSetEqual': 'eq', 'assertSequenceEqual': 'eq', 'assertMultiLineEqual': 'eq',
    'assertCountEqual': 'count', 'assertIn': 'in', 'assertNotIn': 'notin', 'assertNotEqual': 'ne',
    'assertAlmostEqual': 'almost', 'assertAlmostEquals': 'almost',
}


def read_token():
    chunks = []
    while True:
        chunk = os.read(0, 4096)
        if not chunk:
            break
        chunks.append(chunk)
    token = b''.join(chunks).decode('ascii', 'replace').strip()
    null = os.open('/dev/null', os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    if len(token) < 16 or not all(c in '0123456789abcdef' for c in token):
        sys.stderr.write('runner: expected the grading token on standard input\n')
        os._exit(2)
    return token


def no_longer_dumpable():
    """Other processes (a child the solution starts) may not read this one's memory."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6', use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except OSError:
        pass


def module_name(test_file):
    return (test_file[:-3] if test_file.endswith('.py') else test_file).replace('/', '.')


def code_objects(code, into):
    into.append(code)
    for const in code.co_consts:
        if type(const) is types.CodeType:
            code_objects(const, into)


def functions_of(namespace):
    """The plain functions among a module's or class's values (methods, static and class methods)."""
    found = []
    for value in list(namespace.values()):
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property):
            found.extend(f for f in (value.fget, value.fset, value.fdel) if isinstance(f, types.FunctionType))
        elif isinstance(value, types.FunctionType):
            found.append(value)
    return found


def classes_of(module):
    name = module.__name__
    return [v for v in list(vars(module).values()) if isinstance(v, type) and v.__module__ == name]


def real_dict(cls):
    """The dictionary behind a class's read-only __dict__ view."""
    return gc.get_referents(cls.__dict__)[0]


def guard_test_case(audit):
    """Makes TestCase's methods data descriptors, so no instance attribute shadows them. The equality
    assertions hand their two values to the hook once they passed; the steps of a test tell it they
    returned."""
    bind = types.MethodType
    made = []
    for name, value in list(vars(unittest.TestCase).items()):
        if name.startswith('__') or not isinstance(value, types.FunctionType):
            continue
        if name in CHECKED:

            def method(self, first, second, *args, _orig=value, _audit=audit, _kind=CHECKED[name], **kwargs):
                result = _orig(self, first, second, *args, **kwargs)
                _audit(EVENT + 'compare', _kind, first, second, args, kwargs)
                return result

        elif name in STEPS:

            def method(self, *args, _orig=value, _audit=audit, _step=name, **kwargs):
                result = _orig(self, *args, **kwargs)
                _audit(EVENT + 'step', _step, self)
                return result

        else:
            method = value
        if method is not value:
            method.__name__ = method.__qualname__ = name
            method.__doc__ = value.__doc__
            made.append(method)
        setattr(unittest.TestCase, name, property(lambda self, _f=method, _bind=bind: _bind(_f, self)))
    return made


class Result:
    """What unittest reports a test's outcome to: each call goes straight to the hook. No instance
    attributes (nothing to shadow); its class dictionary is watched like unittest's."""

    __slots__ = ()

    def startTest(self, test):
        pass

    def stopTest(self, test):
        pass

    def addSuccess(self, test, _audit=sys.audit):
        _audit(EVENT + 'result', 'success', test, None)

    def addFailure(self, test, err, _audit=sys.audit):
        _audit(EVENT + 'result', 'failure', test, err)

    def addError(self, test, err, _audit=sys.audit):
        _audit(EVENT + 'result', 'error', test, err)

    def addSkip(self, test, reason, _audit=sys.audit):
        _audit(EVENT + 'result', 'skipped', test, reason)

    def addExpectedFailure(self, test, err, _audit=sys.audit):
        _audit(EVENT + 'result', 'expected failure', test, err)

    def addUnexpectedSuccess(self, test, _audit=sys.audit):
        _audit(EVENT + 'result', 'unexpected success', test, None)

    def addSubTest(self, test, subtest, err, _audit=sys.audit):
        if err is not None:
            _audit(EVENT + 'result', 'subtest failed', test, err)


class TestFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the test modules from the code compiled before the solution could run."""

    def __init__(self, codes):
        self.codes = codes

    def find_spec(self, name, path=None, target=None):
        if name not in self.codes:
            return None
        return importlib.machinery.ModuleSpec(name, self, origin=self.codes[name].co_filename)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__file__ = self.codes[module.__name__].co_filename
        exec(self.codes[module.__name__], module.__dict__)


def install_hook(token, out_fd, trusted_codes, system_codes, emitter_codes, watched, guarded_functions, stdout):
    """Installs the audit hook that holds the token and the outcomes. Nothing it refers to is reachable
    from outside its closure. It never runs code of the solution (no __eq__, __str__, __hash__ or
    attribute of an object it did not make: it reads through the builtin types' own slots) and uses only
    what is captured here, never a global."""
    _type, _id, _len, _str, _int, _float, _complex, _bytes = type, id, len, str, int, float, complex, bytes
    _list, _tuple, _dict, _set, _frozenset, _abs, _round, _ord, _range, _zip = (
        list, tuple, dict, set, frozenset, abs, round, ord, range, zip,
    )
    _none = type(None)
    _getframe, _get_ident, _write, _exit, _getcwd = sys._getframe, _thread.get_ident, os.write, os._exit, os.getcwd
    _from_address, _referents = ctypes.c_uint64.from_address, gc.get_referents
    _runtime_error, _value_error, _assertion_error, _base_exception = (
        RuntimeError, ValueError, AssertionError, BaseException,
    )
    _type_mro = type.__dict__['__mro__'].__get__
    _type_name = type.__dict__['__name__'].__get__
    _type_module = type.__dict__['__module__'].__get__
    _type_dict = type.__dict__['__dict__'].__get__
    _type_flags = type.__dict__['__flags__'].__get__
    _heap_type = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time, not a builtin type
    comparison_methods = ('__eq__', '__ne__', '__hash__', '__contains__', '__iter__', '__len__', '__getitem__')
    _module_dict = types.ModuleType.__dict__['__dict__'].__get__
    _function_dict = types.FunctionType.__dict__['__dict__'].__get__
    _exception_args = BaseException.__dict__['args'].__get__
    _str_str, _int_index, _float_float = str.__str__, int.__index__, float.__float__
    _complex_complex, _bytes_bytes, _bytes_decode = complex.__complex__, bytes.__bytes__, bytes.decode
    _list_iter, _tuple_iter, _set_iter, _frozenset_iter = list.__iter__, tuple.__iter__, set.__iter__, frozenset.__iter__
    _dict_items, _dict_get, _dict_values = dict.items, dict.get, dict.values
    _function_type, _module_type = types.FunctionType, types.ModuleType
    _fraction, _decimal = fractions.Fraction, decimal.Decimal
    _event, _offset, _steps = EVENT, DICT_VERSION_OFFSET, STEPS
    flush = stdout.flush
    main = _get_ident()
    cwd = _getcwd()
    plain_atoms = (int, float, complex, bool, str, bytes, _none)
    numbers = (int, float, complex, bool)

    trusted = {_id(c) for c in trusted_codes}
    system = {_id(c) for c in system_codes}
    emitters = {_id(c) for c in emitter_codes}
    keep = [trusted_codes, system_codes, emitter_codes, guarded_functions]  # kept alive, so that their ids stay theirs
    versions = {}  # name -> (dict, version view, version seen)
    guarded = {_id(f) for f in guarded_functions}
    protected_classes = set()
    test_functions = set()
    exercise_codes = set()
    busy = [0]  # the thread whose own work in the hook is under way (its nested events pass)
    tampering = []
    order = []  # test names, in the order they were collected
    outcomes = {}  # name -> (passed, message)
    # The running test: name, instance, successes, first failure, steps that returned.
    current = [None, None, 0, None, set()]

    class Opaque:
        """An object that plain data cannot stand for, in a canonical value (compared by identity)."""

        __slots__ = ('value',)

    def note(text):
        if text not in tampering:
            tampering.append(text)

    def watch(name, d):
        view = _from_address(_id(d) + _offset)
        versions[name] = (d, view, view.value)

    def integrity():
        for name, (d, view, seen) in _list(_dict_items(versions)):
            if view.value != seen:
                note(f'{name} was changed')
                first_failure(f'{name} was changed while the test ran')
                versions[name] = (d, view, view.value)

    def trusted_stack(depth):
        frame = _getframe(depth)
        while frame is not None:
            if _id(frame.f_code) not in trusted:
                return False
            frame = frame.f_back
        return True

    def asked_by_trusted_code(asked):
        """Whether the nearest frame that is not the system's own library code (inspect, traceback)
        belongs to the runner, unittest or the tests, and calls by name what led to the read (their
        source names `currentframe`, `_getframe` or `tb_frame`): they may read frames, the solution may
        not, nor may it hand them a builtin that does (a functools.partial of sys._getframe as a method)."""
        busy[0] = _get_ident()
        try:
            frame = _getframe(2)  # the frame that asked (0 is this function, 1 the hook)
            while frame is not None:
                code = frame.f_code
                if _id(code) in trusted:
                    return asked in code.co_names
                if _id(code) not in system:
                    return False
                asked = code.co_name
                frame = frame.f_back
            return False
        finally:
            busy[0] = 0

    def first_failure(message):
        if current[0] is not None and current[3] is None:
            current[3] = message

    def refuse(what):
        note(f'{what} (refused)')
        raise _runtime_error(f'the grading runner does not allow {what}')

    def as_text(value):
        """A str or bytes (or a subclass's own data) as a plain str, else None; never the object's code."""
        for base in _type_mro(_type(value)):
            if base is _str:
                return _str_str(value)
            if base is _bytes:
                return _bytes_decode(_bytes_bytes(value), 'utf-8', 'replace')
        return None

    def describe_error(err):
        """An exception's type name and first argument, without running any of its code."""
        text = as_text(err)
        if text is not None:
            return text
        if _type(err) is not _tuple or _len(err) != 3:
            return 'failed'
        exc = err[1]
        kind = _type(exc)
        if not any(base is _base_exception for base in _type_mro(kind)):
            return _type_name(kind)
        args = _exception_args(exc)
        message = as_text(args[0]) if _type(args) is _tuple and _len(args) > 0 else None
        return _type_name(kind) if message is None else f'{_type_name(kind)}: {message}'

    def wrap(value):
        o = Opaque()
        o.value = value
        return o

    def canon(value, depth):
        """The value as exact builtins (a subclass read through its base type's own slots), or Opaque."""
        kind = _type(value)
        if kind in plain_atoms:
            return value
        if depth > 40:
            return wrap(value)
        if kind is _list:
            return [canon(v, depth + 1) for v in value]
        if kind is _tuple:
            return _tuple([canon(v, depth + 1) for v in value])
        if kind is _dict:
            return {canon(k, depth + 1): canon(v, depth + 1) for k, v in _dict_items(value)}
        if kind is _set or kind is _frozenset:
            return kind([canon(v, depth + 1) for v in value])
        for base in _type_mro(kind):
            if base is _int:
                return _int_index(value)
            if base is _str:
                return _str_str(value)
            if base is _float:
                return _float_float(value)
            if base is _complex:
                return _complex_complex(value)
            if base is _bytes:
                return _bytes_bytes(value)
            if base is _list:
                return [canon(v, depth + 1) for v in _list_iter(value)]
            if base is _tuple:
                return _tuple([canon(v, depth + 1) for v in _tuple_iter(value)])
            if base is _dict:
                return {canon(k, depth + 1): canon(v, depth + 1) for k, v in _dict_items(value)}
            if base is _set:
                return _frozenset([canon(v, depth + 1) for v in _set_iter(value)])
            if base is _frozenset:
                return _frozenset([canon(v, depth + 1) for v in _frozenset_iter(value)])
        return wrap(value)

    def opaque_in(value):
        """The first object in a canonical value that is not plain data, or None."""
        kind = _type(value)
        if kind is Opaque:
            return value
        if kind is _list or kind is _tuple or kind is _set or kind is _frozenset:
            for v in value:
                found = opaque_in(v)
                if found is not None:
                    return found
        elif kind is _dict:
            for k, v in _dict_items(value):
                found = opaque_in(k)
                if found is None:
                    found = opaque_in(v)
                if found is not None:
                    return found
        return None

    def compares_by_own_code(cls):
        """Whether a class's comparisons or iteration are code of a class defined at run time (the
        solution's), rather than of a builtin type or the standard library's number types."""
        for base in _type_mro(cls):
            if base is _fraction or base is _decimal:
                return False
            if _type_flags(base) & _heap_type:
                d = _type_dict(base)
                for name in comparison_methods:
                    if name in d:
                        return True
        return False

    def count_equal(a, b):
        rest = _list(b)
        for x in a:
            for i in _range(_len(rest)):
                if rest[i] == x:
                    del rest[i]
                    break
            else:
                return False
        return _len(rest) == 0

    def almost(a, b, args, kwargs):
        if a == b:
            return True
        if _type(a) not in numbers or _type(b) not in numbers:
            return True
        places = args[0] if _len(args) > 0 else _dict_get(kwargs, 'places')
        delta = args[2] if _len(args) > 2 else _dict_get(kwargs, 'delta')
        diff = _abs(a - b)
        if _type(delta) in numbers:
            return diff <= delta
        return _round(diff, places if _type(places) is _int else 7) == 0

    def recheck(kind, first, second, args, kwargs):
        """Why a passed assertion does not hold for its values as plain data, or None when it does."""
        a, b = canon(first, 0), canon(second, 0)
        opaque_a, opaque_b = opaque_in(a), opaque_in(b)
        if opaque_a is not None and opaque_b is not None:
            return None  # the solution's objects on both sides: their own __eq__ is all there is
        if opaque_a is not None or opaque_b is not None:
            if kind == 'ne' or kind == 'notin':
                return None
            cls = _type((opaque_a if opaque_a is not None else opaque_b).value)
            if not compares_by_own_code(cls):
                return None
            module = as_text(_type_module(cls)) or '?'
            plain = _type_name(_type(second if opaque_a is not None else first))
            return f'an object of class {module}.{_type_name(cls)} passed as equal to a plain {plain} by its own comparison'
        if kind == 'eq':
            holds = a == b
        elif kind == 'ne':
            holds = a != b
        elif kind == 'in':
            holds = a in b
        elif kind == 'notin':
            holds = a not in b
        elif kind == 'count':
            holds = count_equal(_list(a), _list(b)) if _type(a) in (_list, _tuple) and _type(b) in (_list, _tuple) else True
        elif kind == 'almost':
            holds = almost(a, b, args, kwargs)
        else:
            holds = True
        return None if holds else 'the assertion passed although its values differ as plain data'

    def escape(text):
        out = []
        for ch in text:
            code = _ord(ch)
            if ch == '"' or ch == '\\':
                out.append('\\' + ch)
            elif 0x20 <= code < 0x7F:
                out.append(ch)
            else:
                out.append('\\u%04x' % code if code < 0x10000 else '?')
        return ''.join(out)

    def report():
        tests = []
        for name in order:
            passed, message = _dict_get(outcomes, name, (False, 'never ran'))
            entry = f'{{"name":"{escape(name)}","passed":{"true" if passed else "false"}'
            if not passed:
                entry += f',"message":"{escape(message[:300])}"'
            tests.append(entry + '}')
        notes = ','.join(f'"{escape(t[:300])}"' for t in tampering)
        return f'\n{token} {{"tests":[{",".join(tests)}],"tampering":[{notes}]}}\n'

    def finish():
        try:
            flush()
        except _base_exception:
            pass
        data = report().encode('utf-8')
        while data:
            data = data[_write(out_fd, data):]
        _exit(0)

    def on_collected(names, functions, classes, modules, test_codes):
        for code in test_codes:
            trusted.add(_id(code))
            exercise_codes.add(_id(code))
        for name, function in _zip(names, functions):
            text = as_text(name)
            if text is None or text in order:
                continue
            order.append(text)
            # A test whose code was not compiled from the exercise's test files is not the exercise's.
            # A decorator of unittest's (mock.patch) wraps it: its code is trusted, the test is __wrapped__.
            code = None
            for _ in _range(8):
                if _type(function) is not _function_type:
                    break
                code = function.__code__
                if _id(code) not in trusted or _id(code) in exercise_codes:
                    break
                function = _dict_get(_function_dict(function), '__wrapped__')
            if code is None or _id(code) not in exercise_codes:
                note(f'{text} is not the test the exercise defines')
                outcomes[text] = (False, 'not the test the exercise defines')
        for module in modules:
            if _type(module) is not _module_type:
                continue
            d = _module_dict(module)
            watch(f'the test module {as_text(_dict_get(d, "__name__")) or "?"}', d)
            for value in _list(_dict_values(d)):
                if _type(value) is _function_type:
                    test_functions.add(_id(value))
        for cls in classes:
            if _type(cls) is not _type:
                continue
            protected_classes.add(_id(cls))
            d = _referents(_type_dict(cls))[0]
            watch(f'the test class {_type_name(cls)}', d)
            for value in _list(_dict_values(d)):
                if _type(value) is _function_type:
                    test_functions.add(_id(value))
        keep.append((functions, classes, modules, test_codes))

    def on_result(kind, test, err):
        if test is not current[1]:
            note('an outcome was reported for a test that was not running')
            return
        if kind == 'success':
            current[2] += 1
        elif kind == 'failure':
            first_failure(describe_error(err))
        else:
            first_failure(f'{kind}: {describe_error(err)}')

    def on_end(name):
        if current[0] != name:
            return
        if current[3] is None:
            if _len(current[4]) != _len(_steps):
                if current[2] > 0:
                    # unittest swallows _ShouldStop: a success whose test method never returned.
                    note(f'{name}: counted a success although the test did not run to its end')
                first_failure('the test did not run to its end')
            elif current[2] != 1:
                first_failure('the test did not finish' if current[2] == 0 else 'the test reported success twice')
        outcomes[name] = (current[3] is None, current[3] or '')
        current[0] = current[1] = current[3] = None
        current[2] = 0
        current[4] = set()

    def runner_event(event, args):
        # Raised by the runner's own code (not by a builtin that test code was handed), on the main thread.
        if _get_ident() != main or _id(_getframe(2).f_code) not in emitters or not trusted_stack(3):
            note(f'an event of the test runner ({event[_len(_event):]}) was raised by other code')
            return
        integrity()
        kind = event[_len(_event):]
        if kind == 'result':
            on_result(*args)
        elif kind == 'step':
            if args[1] is current[1] and args[0] in _steps:
                current[4].add(args[0])
        elif kind == 'compare':
            if current[1] is None:
                return
            why = recheck(*args)
            if why is not None:
                note(f'{current[0]}: {why}')
                first_failure(why)
                raise _assertion_error(why)
        elif kind == 'begin':
            if args[0] in outcomes:
                return  # refused at collection
            current[0], current[1], current[2], current[3], current[4] = args[0], args[1], 0, None, set()
        elif kind == 'end':
            on_end(args[0])
        elif kind == 'failed':
            if args[0] not in order:
                order.append(args[0])
            outcomes[args[0]] = (False, args[1])
        elif kind == 'note':
            note(args[0])
        elif kind == 'collected':
            on_collected(*args)
        elif kind == 'finish':
            finish()

    def under_proc(path):
        text = as_text(path)
        if text is None:
            return False
        if not text.startswith('/'):
            text = cwd + '/' + text
        parts = []
        for part in text.split('/'):
            if part == '..':
                if parts:
                    parts.pop()
            elif part and part != '.':
                parts.append(part)
        return _len(parts) > 0 and parts[0] == 'proc'

    frame_attributes = ('tb_frame', 'gi_frame', 'cr_frame', 'ag_frame', 'f_code', 'gi_code', 'cr_code', 'ag_code')
    function_attributes = ('__code__', '__defaults__', '__kwdefaults__')
    refused_modules = ('_xxsubinterpreters', '_xxinterpchannels', '_testcapi', '_testinternalcapi')

    def hook(event, args):
        if busy[0] == _get_ident() or _type(event) is not _str:
            return
        if event.startswith(_event):
            busy[0] = _get_ident()
            try:
                runner_event(event, args)
            finally:
                busy[0] = 0
        elif event == 'object.__getattr__':
            name = args[1]
            if (name in frame_attributes or (name == '__code__' and _id(args[0]) in test_functions)) and not asked_by_trusted_code(name):
                raise _runtime_error(f'the grading runner does not let the solution read {name}')
        elif event == 'sys._getframe':
            if not asked_by_trusted_code('_getframe'):
                # namedtuple, enum and typing expect ValueError when no frame can be had.
                raise _value_error('the grading runner does not let the solution read frames')
        elif event == 'object.__setattr__':
            target, name = _id(args[0]), args[1]
            if name in function_attributes and (target in guarded or target in test_functions):
                refuse(f'changing {name} of a function of the test framework or the tests')
            if name == '__bases__' and target in protected_classes:
                refuse('changing the base classes of a class of the test framework or the tests')
        elif event == 'open':
            if under_proc(args[0]):
                refuse('opening files under /proc')
        elif event.startswith('gc.get_'):
            refuse(f"{event} (the runner's memory)")
        elif event.startswith('ctypes.'):
            refuse(f'ctypes ({event})')
        elif event in ('sys.settrace', 'sys.setprofile', 'sys._current_frames'):
            refuse(event)
        elif event == 'sys.addaudithook':
            note('sys.addaudithook (refused)')
            raise _runtime_error('the grading runner does not allow other audit hooks')
        elif event in ('os.symlink', 'os.link'):
            refuse(event)
        elif event == 'import':
            module, filename = as_text(args[0]), as_text(args[1])
            if module in refused_modules:
                refuse(f'importing {module}')
            if filename is not None and not filename.startswith('/usr/'):
                refuse(f'loading the native module {filename}')

    for name, d in watched:
        watch(name, d)
    protected_classes.update(_id(cls) for cls in (unittest.TestCase, Result, TestFinder))
    sys.addaudithook(hook)


def watched_dicts():
    """The builtins, this runner, and every grading module's dictionary, its classes' and its functions'
    keyword defaults (where the guarded methods keep what they call)."""
    found = [('the builtins', vars(__builtins__) if isinstance(__builtins__, types.ModuleType) else __builtins__)]
    found.append(('the test runner', globals()))
    classes = [Result, TestFinder]
    for module in GRADING_MODULES:
        found.append((f'the module {module.__name__}', vars(module)))
        classes.extend(classes_of(module))
    for cls in classes:
        found.append((f'the class {cls.__module__}.{cls.__qualname__}', real_dict(cls)))
        for f in functions_of(vars(cls)):
            if f.__kwdefaults__:
                found.append((f'the defaults of {cls.__qualname__}.{f.__name__}', f.__kwdefaults__))
    return found


def grading_functions():
    """Every function of the grading modules and this runner, nested ones and those a decorator wraps
    (contextmanager's generators) included: what may be on the stack when an outcome is reported."""
    files = {getattr(m, '__file__', None) for m in GRADING_MODULES} | {__file__}
    files.discard(None)
    return [o for o in gc.get_objects() if type(o) is types.FunctionType and o.__code__.co_filename in files]


def system_functions():
    """The standard library's functions loaded so far: code that may stand between a frame's reader
    and the code that asked for it."""
    prefix = os.path.dirname(os.__file__) + '/'
    return [
        o
        for o in gc.get_objects()
        if type(o) is types.FunctionType
        and (o.__code__.co_filename.startswith(prefix) or o.__code__.co_filename.startswith('<frozen '))
    ]


def imports_of(code):
    """The modules the test code imports."""
    names = [i.argval for i in dis.get_instructions(code) if i.opname == 'IMPORT_NAME']
    for const in code.co_consts:
        if type(const) is types.CodeType:
            names.extend(imports_of(const))
    return [n for n in names if isinstance(n, str)]


def tests_of(module, file):
    """(name, class, method) for each test of a test module: TestCase methods and test functions."""
    found = []
    loader = unittest.TestLoader()
    for value in list(vars(module).values()):
        if isinstance(value, type) and issubclass(value, unittest.TestCase) and value.__module__ == module.__name__:
            found.extend((f'{file}::{value.__qualname__}::{m}', value, m) for m in loader.getTestCaseNames(value))
        elif isinstance(value, types.FunctionType) and value.__name__.startswith('test') and value.__module__ == module.__name__:
            found.append((f'{file}::{value.__name__}', None, value))
    return found


def foreign_base(cls, test_classes):
    """A class in a test class's ancestry that neither the tests nor unittest define, or None."""
    for base in cls.__mro__:
        if base is not object and base is not unittest.TestCase and not any(base is c for c in test_classes):
            return base
    return None


def load(test_files, audit):
    """Imports the test modules (and so the solution): their tests, classes and modules."""
    tests, classes, modules = [], [], []
    for file in test_files:
        name = module_name(file)
        try:
            module = importlib.import_module(name)
        except BaseException as error:  # noqa: BLE001 - a solution may raise anything while it loads
            if not isinstance(error, Exception):
                audit(EVENT + 'note', f'{type(error).__name__} was raised while the tests were loading')
            audit(EVENT + 'failed', f'{file}::(loading)', f'the tests could not be loaded: {type(error).__name__}')
            continue
        modules.append(module)
        tests.extend(tests_of(module, file))
        classes.extend(v for v in list(vars(module).values()) if isinstance(v, type) and v.__module__ == name)
    return tests, classes, modules


def main():
    audit = sys.audit
    token = read_token()
    out_fd = os.dup(1)
    test_files = sys.argv[1:]
    cwd = os.getcwd()

    codes = {}
    for file in test_files:
        with open(file, encoding='utf-8') as handle:
            codes[module_name(file)] = compile(handle.read(), os.path.join(cwd, file), 'exec')
    # The modules the tests import come from the system, loaded before the solution could stand in.
    for code in codes.values():
        for name in imports_of(code):
            if name.split('.')[0] not in codes and not os.path.exists(os.path.join(cwd, name.split('.')[0] + '.py')):
                try:
                    importlib.import_module(name)
                except Exception:  # noqa: BLE001 - a module the system lacks fails where the test imports it
                    pass
    for file in test_files:
        os.unlink(file)
    preloaded = dict(sys.modules)

    made = guard_test_case(audit)
    functions = grading_functions()
    trusted = []
    for f in functions + made:
        code_objects(f.__code__, trusted)
    test_codes = []
    for code in codes.values():
        code_objects(code, test_codes)
    frame = sys._getframe()
    while frame is not None:  # this script's module code, below main()
        trusted.append(frame.f_code)
        frame = frame.f_back
    system = []
    for f in system_functions():
        code_objects(f.__code__, system)
    no_longer_dumpable()
    emitters = [f.__code__ for f in made + functions_of(vars(Result)) + [main, load]]
    install_hook(token, out_fd, trusted + test_codes, system, emitters, watched_dicts(), functions + made, sys.stdout)

    # From here on the solution may run: nothing below holds a secret, and the hook checks what it is told.
    sys.meta_path.insert(0, TestFinder(codes))
    sys.path.insert(0, cwd)
    tests, classes, modules = load(test_files, audit)
    for name, module in preloaded.items():
        if sys.modules.get(name) is not module:
            audit(EVENT + 'note', f'the module {name} was replaced in sys.modules')
    runnable = []
    for name, cls, method in tests:
        foreign = foreign_base(cls, classes) if cls is not None else None
        if cls is not None and (foreign is not None or type(cls) is not type):
            what = foreign.__qualname__ if foreign is not None else f'the metaclass {type(cls).__qualname__}'
            why = f'the test class {cls.__qualname__} inherits from {what}, which the tests do not define'
            audit(EVENT + 'note', why)
            audit(EVENT + 'failed', name, why)
        else:
            runnable.append((name, cls, method))
    set_up = {}
    for cls in {cls for _, cls, _ in runnable if cls is not None}:
        try:
            cls.setUpClass()
        except BaseException as error:  # noqa: BLE001
            set_up[cls] = f'setUpClass failed: {type(error).__name__}'
    functions = [getattr(cls, method, None) if cls is not None else method for _, cls, method in runnable]
    audit(EVENT + 'collected', [name for name, _, _ in runnable], functions, classes, modules, test_codes)

    result = Result()
    for name, cls, method in runnable:
        if cls in set_up:
            audit(EVENT + 'failed', name, set_up[cls])
            continue
        try:
            test = cls(method) if cls is not None else unittest.FunctionTestCase(method)
        except BaseException as error:  # noqa: BLE001
            audit(EVENT + 'failed', name, type(error).__name__)
            continue
        audit(EVENT + 'begin', name, test)
        try:
            test(result)
        except BaseException as error:  # noqa: BLE001 - KeyboardInterrupt passes through unittest
            audit(EVENT + 'note', f'{type(error).__name__} escaped the test {name}')
        audit(EVENT + 'end', name)
    for cls in {cls for _, cls, _ in runnable if cls is not None and cls not in set_up}:
        try:
            cls.tearDownClass()
        except BaseException:  # noqa: BLE001
            pass
    audit(EVENT + 'finish')
    os._exit(3)  # not reached: the hook ends the process once it wrote the report


main()
