/* The CPython entry of csrc/parallel.c (what ATen's at::parallel_for costs a caller: a C++ call), built as an
   extension module by runtime/flat.py's _fast_entry: `run(fn, arrays, s0, s1, n, k)` runs the flat kernel at
   address fn over n elements of the numpy arrays in the list or tuple `arrays` (2: input and output, read as p[0] and
   p[2]; 3: p[0..2]; 4: p[0..3]) on up to k threads, in chunks of flat._grain's size, with the GIL released for
   the call, and returns ember_parallel_for's count of threads that took part.

   Why: ctypes pays ~14k instructions for a call with ten arguments (argument conversion, libffi's per-call
   setup) and flat.run read each array's data pointer through another ctypes call (~1k instructions each); a
   1M-element op on 2 threads takes ~25-50 us, a 64k-element one ~5 us, so the ~4 us of the entry was ~10% and
   ~50% of them. Here a call is METH_FASTCALL: a few hundred instructions.

   The data pointer of an ndarray is the field that follows the object header (runtime/clib.py's address reader
   checks that offset against `ndarray.ctypes.data` on probe arrays and passes it to `init`, with the ndarray
   type, the address of ember_parallel_for and flat.py's grain constants); any other object raises TypeError,
   which flat.py never passes. Built with the Python headers (sysconfig's include dir); when that fails flat.py
   keeps its ctypes call. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef int (*ep_par)(void *fn, void *p0, void *p1, void *p2, void *p3, double s0, double s1, int64_t n,
                      int64_t grain, int nthreads);

static ep_par par_for;
static PyTypeObject *ndarray;
static Py_ssize_t data_off;
static int64_t grain0, chunks, chunk_min, align;

/* flat._grain: one chunk up to grain0 elements, else about `chunks` a thread, at least chunk_min, aligned */
static int64_t grain_of(int64_t n, int k) {
    if (n <= grain0)
        return n;
    int64_t g = n / (chunks * k);
    if (g < chunk_min)
        g = chunk_min;
    return (g + align - 1) / align * align;
}

static int data_of(PyObject *a, void **p) {
    if (Py_TYPE(a) != ndarray) {
        PyErr_SetString(PyExc_TypeError, "parallel_call.run: arrays must be numpy.ndarray");
        return -1;
    }
    *p = *(void **)((char *)a + data_off);
    return 0;
}

static PyObject *pc_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 7 || !PyType_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "init(parallel_for, ndarray, data_offset, grain, chunks, chunk_min, align)");
        return NULL;
    }
    void *pf = PyLong_AsVoidPtr(args[0]);
    Py_ssize_t off = PyLong_AsSsize_t(args[2]);
    int64_t v[4];
    for (int i = 0; i < 4; i++)
        v[i] = PyLong_AsLongLong(args[3 + i]);
    if (PyErr_Occurred())
        return NULL;
    if (!pf || off <= 0 || v[0] < 1 || v[1] < 1 || v[2] < 1 || v[3] < 1) {
        PyErr_SetString(PyExc_ValueError, "init: bad arguments");
        return NULL;
    }
    par_for = (ep_par)pf;
    Py_INCREF(args[1]);
    Py_XDECREF((PyObject *)ndarray);
    ndarray = (PyTypeObject *)args[1];
    data_off = off;
    grain0 = v[0]; chunks = v[1]; chunk_min = v[2]; align = v[3];
    Py_RETURN_NONE;
}

static PyObject *pc_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 6 || !(PyList_Check(args[1]) || PyTuple_Check(args[1])) || !par_for) {
        PyErr_SetString(PyExc_TypeError, "run(fn, arrays, s0, s1, n, k) after init");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(args[0]);
    const double s0 = PyFloat_AsDouble(args[2]), s1 = PyFloat_AsDouble(args[3]);
    const int64_t n = PyLong_AsLongLong(args[4]);
    const long k = PyLong_AsLong(args[5]);
    if (PyErr_Occurred())
        return NULL;
    PyObject *lst = args[1];
    const Py_ssize_t na = PySequence_Fast_GET_SIZE(lst);
    void *p[4] = {0, 0, 0, 0};
    if (na < 2 || na > 4 || !fn || k < 1) {
        PyErr_SetString(PyExc_ValueError, "run: 2 to 4 arrays, a kernel address and k >= 1");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < na; i++)
        if (data_of(PySequence_Fast_GET_ITEM(lst, i), &p[na == 2 && i == 1 ? 2 : i]) < 0)
            return NULL;
    int used = 1;
    if (n > 0) {
        const int64_t g = k > 1 ? grain_of(n, (int)k) : n;
        Py_BEGIN_ALLOW_THREADS
        used = par_for(fn, p[0], p[1], p[2], p[3], s0, s1, n, g, (int)k);
        Py_END_ALLOW_THREADS
    }
    return PyLong_FromLong(used);
}

typedef double (*sum_fn)(const void *x, int64_t n, int nthreads, void *parallel_for, int *joined);

/* sum_all(fn, array, n, k) -> (sum, threads): csrc/reduction_flat.c's sum_all_<f32|f64> at address fn over the
   n elements of c-contiguous `array` (runtime/flat.py's sum_all checked it) on up to k threads, the GIL
   released */
static PyObject *pc_sum_all(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4 || !par_for) {
        PyErr_SetString(PyExc_TypeError, "sum_all(fn, array, n, k) after init");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(args[0]);
    const int64_t n = PyLong_AsLongLong(args[2]);
    const long k = PyLong_AsLong(args[3]);
    if (PyErr_Occurred())
        return NULL;
    void *x;
    if (data_of(args[1], &x) < 0)
        return NULL;
    if (!fn || k < 1 || n < 0) {
        PyErr_SetString(PyExc_ValueError, "sum_all: a kernel address, n >= 0 and k >= 1");
        return NULL;
    }
    int joined = 1;
    double r;
    Py_BEGIN_ALLOW_THREADS
    r = ((sum_fn)fn)(x, n, (int)k, k > 1 ? (void *)par_for : 0, &joined);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(di)", r, joined);
}

static PyMethodDef pc_methods[] = {
    {"init", (PyCFunction)(void (*)(void))pc_init, METH_FASTCALL, "init(parallel_for, ndarray, data_offset, ...)"},
    {"run", (PyCFunction)(void (*)(void))pc_run, METH_FASTCALL, "run(fn, arrays, s0, s1, n, k) -> threads"},
    {"sum_all", (PyCFunction)(void (*)(void))pc_sum_all, METH_FASTCALL, "sum_all(fn, array, n, k) -> (sum, threads)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef pc_module = {PyModuleDef_HEAD_INIT, "_ember_parallel_call", NULL, -1, pc_methods,
                                       NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__ember_parallel_call(void) { return PyModule_Create(&pc_module); }
