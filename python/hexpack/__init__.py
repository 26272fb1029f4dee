"""hexpack: curved high-order all-hex meshes of pebble beds and boxes, TMOP optimization, quality
and the solvers' formats, through libhexpack (docs/python.md).

    import hexpack
    mesh = hexpack.pebble(centres, radii, container=("cyl", 6.6), order=3)  # the quality path
    q = mesh.quality()                   # dict: num_elem, scaled_jacobian_min, num_inverted, ...
    mesh.write("bed.re2", "bed.vtu")     # format from the extension
    mesh.coords, mesh.elements           # numpy arrays

Options are the command line's flags without "--", '-' written '_' (bridge_gap=0.02). Every
failure raises hexpack.Error with the library's one-line message.
"""
import ctypes
import threading

import numpy as np

from . import _lib

__all__ = ["Error", "Mesh", "pebble", "box", "rods", "read", "option_names", "version", "library_path"]

_L, library_path = _lib.load()
_lib.declare(_L)
version = _L.hexpack_version().decode()


class Error(Exception):
    """A failed hexpack call: str(e) is the message, e.status the library's status code."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


# one library call at a time: the library runs MPI serialized and OpenMP regions per call, and its
# error message is read back on the thread that failed, inside the same lock
_lock = threading.Lock()


def _call(fn, *args):
    with _lock:
        rc = fn(*args)
        msg = (_L.hexpack_last_error().decode(errors="replace") or _L.hexpack_status_name(rc).decode()) if rc else ""
    if rc != 0:
        raise Error(msg, rc)


def _text(value):
    """An option's value as the command line writes it."""
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list, np.ndarray)):
        items = list(value)
        if items and isinstance(items[0], str):  # ("cyl", 6.6) -> "cyl:6.6"
            return items[0] + (":" + ",".join(_text(v) for v in items[1:]) if len(items) > 1 else "")
        return ",".join(_text(v) for v in items)
    raise Error(f"option value {value!r}: expected a number, a switch, a string or a sequence of numbers", 1)


class _Opts:
    def __init__(self, options):
        self.p = ctypes.c_void_p()
        _call(_L.hexpack_opts_create, ctypes.byref(self.p))
        for name, value in options.items():
            if value is None:
                continue
            _call(_L.hexpack_opts_set, self.p, name.encode(), _text(value).encode())

    def __del__(self):
        if getattr(self, "p", None) and _L is not None:
            _L.hexpack_opts_destroy(ctypes.byref(self.p))


def option_names(what):
    """The options of 'pebble', 'box', 'rods', 'read', 'optimize', 'quality' or 'write'."""
    s = _L.hexpack_option_names(what.encode())
    if s is None:
        raise Error(f"option_names: unknown function '{what}'; known: pebble, box, rods, read, optimize, quality, write", 1)
    return s.decode().split(", ")


class Mesh:
    """A curved hex mesh held by libhexpack."""

    def __init__(self, handle):
        self._p = handle

    def __del__(self):
        if getattr(self, "_p", None) and _L is not None:
            with _lock:
                _L.hexpack_mesh_destroy(ctypes.byref(self._p))

    def _info(self):
        info = _lib.MeshInfo()
        _call(_L.hexpack_mesh_get_info, self._p, ctypes.byref(info))
        return info

    @property
    def order(self):
        return self._info().order

    @property
    def num_elements(self):
        return self._info().num_elem

    def __len__(self):
        return self.num_elements

    def __repr__(self):
        i = self._info()
        return f"<hexpack.Mesh: {i.num_elem} elements, order {i.order}, {i.num_nodes} nodes>"

    def optimize(self, **options):
        """TMOP in place (as the pebble command's optimizer for a pebble bed's mesh, `rods --optimize`
        for a rod bundle's, else as `hexpack optimize`)."""
        o = _Opts(options)
        _call(_L.hexpack_optimize, self._p, o.p)
        return self

    def quality(self, **options):
        """The quality summary as a dict (hexpack_quality's fields)."""
        o = _Opts(options)
        q = _lib.Quality()
        _call(_L.hexpack_mesh_quality, self._p, o.p, ctypes.byref(q))
        d = {name: getattr(q, name) for name, _ in _lib.Quality._fields_ if name != "reserved"}
        d["validity"] = {0: "unchecked", 1: "proven", 2: "not proven", 3: "invalid"}.get(q.validity, "unknown")
        return d

    def write(self, *paths, **options):
        """Write one or more files (format from the extension) as one set: all or none."""
        if not paths:
            raise Error("write: no path given", 1)
        o = _Opts(options)
        arr = (ctypes.c_char_p * len(paths))(*[str(p).encode() for p in paths])
        _call(_L.hexpack_write_files, self._p, arr, len(paths), o.p)

    @property
    def coords(self):
        """The distinct GLL nodes, shape (num_nodes, 3)."""
        xyz = np.empty((self._info().num_nodes, 3), dtype=np.float64)
        _call(_L.hexpack_mesh_nodes, self._p, xyz.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        return xyz

    @property
    def elements(self):
        """Node indices of every element, shape (num_elem, (order + 1)**3), lexicographic (xi1 fastest)."""
        i = self._info()
        conn = np.empty((i.num_elem, (i.order + 1) ** 3), dtype=np.int64)
        _call(_L.hexpack_mesh_elements, self._p, conn.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)))
        return conn

    @property
    def faces(self):
        """Boundary faces, shape (num_faces, 3): element, local face 0..5, boundary id."""
        f = np.empty((self._info().num_faces, 3), dtype=np.int64)
        _call(_L.hexpack_mesh_faces, self._p, f.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)))
        return f

    @property
    def boundary_names(self):
        """{boundary id: name}."""
        return {b: _L.hexpack_mesh_boundary_name(self._p, b).decode() for b in range(1, self._info().num_boundaries + 1)}


def _new(fn, *args):
    p = ctypes.c_void_p()
    _call(fn, *args, ctypes.byref(p))
    return Mesh(p)


def pebble(centers, radii=None, container=None, order=None, **options):
    """Mesh the fluid about spheres: centers (n, 3), radii (n,) or one number; container "cyl:R",
    ("cyl", R[, CX, CY]), "box", ("box", X0, X1, Y0, Y1); order (default 7); the pebble command's
    other options (layers=3, inlet=(L, N), ...). By default the quality path: the mesher's flags
    for the quality goals, then the optimizer; fast=True: the mesher's own flags and no optimizer
    (optimize=True adds it back); optimize=False: the mesh as the mesher makes it."""
    c = np.ascontiguousarray(np.asarray(centers, dtype=np.float64).reshape(-1, 3))
    dbl = ctypes.POINTER(ctypes.c_double)
    r = None
    if radii is not None and np.ndim(radii) == 0:
        options["radius"] = float(radii)
    elif radii is not None:
        r = np.ascontiguousarray(np.asarray(radii, dtype=np.float64).reshape(-1))
        if r.shape[0] != c.shape[0]:
            raise Error(f"pebble: {c.shape[0]} centres but {r.shape[0]} radii", 1)
    options.update(container=container, order=order)
    o = _Opts(options)
    return _new(_L.hexpack_pebble, c.shape[0], c.ctypes.data_as(dbl), r.ctypes.data_as(dbl) if r is not None else None, o.p)


def box(n=None, order=None, **options):
    """A structured box: n (NX or (NX, NY, NZ)), order, kershaw=(EY, EZ[, S]), lo, hi, optimize, ..."""
    options.update(n=n, order=order)
    o = _Opts(options)
    return _new(_L.hexpack_box, o.p)


def rods(preset=None, order=None, **options):
    """A rod bundle in its duct: preset ("pwr17x17", "hex7", ...) or lattice, pitch, rods=(NX, NY),
    rings, rod_radius, map, duct, z, nz, ...; order (default 1); optimize, ..."""
    options.update(preset=preset, order=order)
    o = _Opts(options)
    return _new(_L.hexpack_rods, o.p)


def read(path, **options):
    """Read a mesh file of any format with a reader (force=True keeps a mesh the checks refuse)."""
    o = _Opts(options)
    return _new(_L.hexpack_read, str(path).encode(), o.p)
