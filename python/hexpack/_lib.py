"""Finding libhexpack.so and declaring its functions (ctypes: nothing to compile at install).

The library is looked for, first found wins:
  1. HEXPACK_LIBRARY: the library file itself, or the directory holding it;
  2. libhexpack.so beside this package (a copy placed there);
  3. pkg-config's libdir of hexpack (an install prefix on PKG_CONFIG_PATH);
  4. lib/ of this Python's prefix (a virtual environment), /usr/local and /usr (cmake --install);
  5. the dynamic loader's own search (LD_LIBRARY_PATH, ldconfig's cache);
  6. build/ of the source tree this package sits in (python/ next to build/).
"""
import ctypes
import ctypes.util
import os
import shutil
import subprocess
import sys

NAME = "libhexpack.so"


def _candidates():
    env = os.environ.get("HEXPACK_LIBRARY")
    if env:
        yield "HEXPACK_LIBRARY", os.path.join(env, NAME) if os.path.isdir(env) else env
        return  # an explicit choice is not second-guessed
    here = os.path.dirname(os.path.abspath(__file__))
    yield "the package", os.path.join(here, NAME)
    if shutil.which("pkg-config"):
        try:
            out = subprocess.run(["pkg-config", "--variable=libdir", "hexpack"], capture_output=True, text=True, timeout=10)
            if out.returncode == 0 and out.stdout.strip():
                yield "pkg-config", os.path.join(out.stdout.strip(), NAME)
        except (OSError, subprocess.SubprocessError):
            pass
    for prefix in (sys.prefix, "/usr/local", "/usr"):
        yield "prefix " + prefix, os.path.join(prefix, "lib", NAME)
    found = ctypes.util.find_library("hexpack")
    yield "the dynamic loader", found or NAME
    yield "the source tree", os.path.join(os.path.dirname(os.path.dirname(here)), "build", NAME)


def load():
    tried = []
    for where, path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{where}: {path} (absent)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{where}: {path} ({e})")
    raise ImportError("hexpack: libhexpack.so not found; build it (cmake --build build) and set HEXPACK_LIBRARY to it, "
                      "or install it (cmake --install build). Tried: " + "; ".join(tried))


class Quality(ctypes.Structure):
    _fields_ = [("num_elem", ctypes.c_int64), ("order", ctypes.c_int32), ("quad_points", ctypes.c_int32),
                ("num_inverted", ctypes.c_int64), ("detj_min", ctypes.c_double), ("detj_max", ctypes.c_double),
                ("detj_min_quad", ctypes.c_double), ("scaled_jacobian_min", ctypes.c_double),
                ("scaled_jacobian_mean", ctypes.c_double), ("corner_sj_min", ctypes.c_double),
                ("corner_sj_mean", ctypes.c_double), ("aspect_max", ctypes.c_double), ("aspect_mean", ctypes.c_double),
                ("min_spacing", ctypes.c_double), ("validity", ctypes.c_int32), ("reserved", ctypes.c_int32)]


class MeshInfo(ctypes.Structure):
    _fields_ = [("order", ctypes.c_int32), ("num_boundaries", ctypes.c_int32), ("num_elem", ctypes.c_int64),
                ("num_nodes", ctypes.c_int64), ("num_faces", ctypes.c_int64)]


def declare(lib):
    P, c_int, c_char_p = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
    PP = ctypes.POINTER(ctypes.c_void_p)
    dbl = ctypes.POINTER(ctypes.c_double)
    i64 = ctypes.POINTER(ctypes.c_int64)
    sigs = {
        "hexpack_version": (c_char_p, []),
        "hexpack_last_error": (c_char_p, []),
        "hexpack_status_name": (c_char_p, [c_int]),
        "hexpack_opts_create": (c_int, [PP]),
        "hexpack_opts_destroy": (None, [PP]),
        "hexpack_opts_set": (c_int, [P, c_char_p, c_char_p]),
        "hexpack_option_names": (c_char_p, [c_char_p]),
        "hexpack_pebble": (c_int, [ctypes.c_int64, dbl, dbl, P, PP]),
        "hexpack_box": (c_int, [P, PP]),
        "hexpack_rods": (c_int, [P, PP]),
        "hexpack_read": (c_int, [c_char_p, P, PP]),
        "hexpack_mesh_destroy": (None, [PP]),
        "hexpack_optimize": (c_int, [P, P]),
        "hexpack_mesh_quality": (c_int, [P, P, ctypes.POINTER(Quality)]),
        "hexpack_write_files": (c_int, [P, ctypes.POINTER(c_char_p), c_int, P]),
        "hexpack_mesh_get_info": (c_int, [P, ctypes.POINTER(MeshInfo)]),
        "hexpack_mesh_nodes": (c_int, [P, dbl]),
        "hexpack_mesh_elements": (c_int, [P, i64]),
        "hexpack_mesh_faces": (c_int, [P, i64]),
        "hexpack_mesh_boundary_name": (c_char_p, [P, c_int]),
    }
    for name, (res, args) in sigs.items():
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise ImportError(f"hexpack: {lib._name} has no {name}: a library older than this package; install the "
                              "library of the same source (cmake --install build) or point HEXPACK_LIBRARY at it") from None
        f.restype, f.argtypes = res, args
    return lib
