"""A solid mesh for the side-by-side tests: a straight bar of 8-node hexahedra (full 2×2×2
Gauss integration, consistent mass), 3 DOFs per node, as scipy sparse matrices — the element
of `model-compiler/tests/common/hex.rs`, so that hydromech and Exudyn read the same M and K."""
import numpy as np
import scipy.sparse as sp

CORNERS = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]


def hex8(size, e, nu, rho):
    """Stiffness and consistent mass (24 × 24) of a rectangular hexahedron of edges `size`."""
    lam = e * nu / ((1 + nu) * (1 - 2 * nu))
    mu = e / (2 * (1 + nu))
    d = np.zeros((6, 6))
    d[:3, :3] = lam
    d[[0, 1, 2], [0, 1, 2]] += 2 * mu
    d[[3, 4, 5], [3, 4, 5]] = mu
    g = 1 / np.sqrt(3)
    jac = np.prod(size) / 8
    ke = np.zeros((24, 24))
    me = np.zeros((24, 24))
    for xi in [(a, b, c) for c in (-g, g) for b in (-g, g) for a in (-g, g)]:
        bm = np.zeros((6, 24))
        shape = np.zeros(8)
        for n, corner in enumerate(CORNERS):
            s = [1 if c else -1 for c in corner]
            f = [1 + s[a] * xi[a] for a in range(3)]
            shape[n] = f[0] * f[1] * f[2] / 8
            grad = [s[a] * f[(a + 1) % 3] * f[(a + 2) % 3] / 8 * 2 / size[a] for a in range(3)]
            c = 3 * n
            bm[0, c], bm[1, c + 1], bm[2, c + 2] = grad
            bm[3, c], bm[3, c + 1] = grad[1], grad[0]
            bm[4, c + 1], bm[4, c + 2] = grad[2], grad[1]
            bm[5, c], bm[5, c + 2] = grad[2], grad[0]
        ke += bm.T @ d @ bm * jac
        me += rho * jac * np.kron(np.outer(shape, shape), np.eye(3))
    return ke, me


def hex_bar(length, width, height, n, e, nu, rho):
    """Node positions [m] and M, K (CSR) of a bar along x from 0 to `length`, its section
    centred on the axis, `n = (along, across y, across z)` elements; nodes x fastest."""
    nx, ny, nz = n
    nid = lambda i, j, k: i + (nx + 1) * (j + (ny + 1) * k)
    pos = np.zeros(((nx + 1) * (ny + 1) * (nz + 1), 3))
    for k in range(nz + 1):
        for j in range(ny + 1):
            for i in range(nx + 1):
                pos[nid(i, j, k)] = [length * i / nx, width * (j / ny - 0.5), height * (k / nz - 0.5)]
    ke, me = hex8(np.array([length / nx, width / ny, height / nz]), e, nu, rho)
    rows, cols, kv, mv = [], [], [], []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                dofs = np.array([3 * nid(i + a, j + b, k + c) + d for (a, b, c) in CORNERS for d in range(3)])
                rows.append(np.repeat(dofs, 24))
                cols.append(np.tile(dofs, 24))
                kv.append(ke.ravel())
                mv.append(me.ravel())
    ndof = 3 * len(pos)
    r, c = np.concatenate(rows), np.concatenate(cols)
    K = sp.csr_matrix((np.concatenate(kv), (r, c)), shape=(ndof, ndof))
    M = sp.csr_matrix((np.concatenate(mv), (r, c)), shape=(ndof, ndof))
    return pos, M, K
