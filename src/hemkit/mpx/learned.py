"""Learned multiplexing estimators: MLP and bidirectional GRU (Wang, Wang & Lin 2022, section 3).

Both map the multiplexed series to the OCOE series on a ``log10`` scale, as in the paper,
and are trained by default with its mean squared error.  hemkit's variant of the set-up:

* Inputs per interval are the interpolation features of
  :func:`hemkit.mpx.estimators.interpolation_features` (log10 fixed / linear / growth / min
  estimates, whether the event was on a counter, distance to the nearest slices, position in
  the run, the series' mean observed rate, and the level of the run's other events); the MLP sees a window of ``2 * window + 1``
  intervals, the Bi-GRU the whole sequence (random crops of ``crop`` intervals in training).
* The target is the *residual* ``log10(1 + true) - log10(1 + start)`` where ``start`` is an
  interpolation estimator (``base``, default linear): the networks learn a correction to it,
  which keeps them close to it where they know little (the output layer starts at zero, so an
  untrained network returns ``start`` exactly).
* The loss counts only intervals where the event was off a counter (the others are exact).
  ``loss="mse"`` (default) is the paper's mean squared error of log10 counts; ``loss="ra"``
  minimises a smooth version of the relative error of Eq. (4), ``log(1 + |est - true| / true)``
  (an interval's error beyond 1 hardly matters once a series' RA is clipped at 0; the log keeps
  a gradient there) and ``tanh(est / 0.5)`` for a zero truth (hemkit's 0/1 rule), each series
  weighted equally, i.e. it trains for the score it is judged by.
* ``clip=True`` (default): an estimate stays between the two slices around its gap -- a
  network may not invent a burst no slice saw, and between two zero slices it returns 0.
  Without it, log-scale regression turns exact zeros into small counts, each a full miss
  for RA (measured: the paper-size Bi-GRU fell from RA 0.78 to 0.53 on held-out workloads).
* The event's identity (one-hot over the events seen in training; zeros for a new event)
  is an input, so one model learns each event's behaviour.
* Paper hyper-parameters: MLP 128/64 hidden units, dropout 0.3, lr 3e-3, 1200 epochs; Bi-GRU
  hidden 64, 3 layers, lr 5e-3, 600 epochs, batch size 1.  hemkit keeps the layer sizes and
  learning rates but trains in mini-batches for far fewer epochs (defaults 40 and 25; a Bi-GRU
  epoch is a random ``series_per_epoch`` crops) on one thread, so that training takes minutes on
  2 shared CPU cores (two torch threads on a busy 2-core machine ran 5-10x slower than one).

PyTorch is imported lazily (extra ``hemkit[learn]``); without it these raise HemkitError.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from hemkit.errors import HemkitError
from hemkit.mpx.emulate import MpxData
from hemkit.mpx.estimators import MpxEstimator, _check, _finish, _gap_weights, interpolation_features, make_estimator


def _torch():
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise HemkitError("the mlp and bigru estimators need PyTorch: pip install 'hemkit[learn]'") from exc
    return torch


def _windows(x: np.ndarray, w: int) -> np.ndarray:
    """(S, T, F) -> (S, T, (2w+1) F): features of the w intervals before and after each interval."""
    S, T, F = x.shape
    pad = np.pad(x, ((0, 0), (w, w), (0, 0)))
    return np.concatenate([pad[:, k : k + T] for k in range(2 * w + 1)], axis=-1)


def _zero(layer):
    """Output layer starting at 0: an untrained network returns its start estimator exactly."""
    layer.weight.data.zero_()
    layer.bias.data.zero_()
    return layer


class _TorchEstimator(MpxEstimator):
    def _prepare(self, mpx: MpxData):
        feats = interpolation_features(mpx)
        vocab = getattr(self, "vocab_", [])
        if vocab:
            code = pd.Index(vocab).get_indexer(mpx.keys["event"])
            onehot = np.zeros((len(code), len(vocab)), np.float32)
            onehot[code >= 0, code[code >= 0]] = 1.0
            onehot = np.broadcast_to(onehot[:, None, :], (*feats.shape[:2], len(vocab)))
            feats = np.concatenate([feats, np.where(mpx.valid[..., None], onehot, 0.0)], axis=-1)
        feats = feats.astype(np.float32)
        start = make_estimator(getattr(self, "base", "linear")).estimate_array(mpx)
        base = np.log10(1 + np.nan_to_num(np.maximum(start, 0)))
        gap = mpx.valid & ~(mpx.observed & (mpx.running >= mpx.enabled))
        return feats, base, gap

    def fit(self, mpx: MpxData) -> _TorchEstimator:
        torch = _torch()
        _check(mpx)
        if mpx.truth is None:
            raise HemkitError(f"{self.name}: training needs the true counts (emulate from OCOE traces)")
        torch.manual_seed(self.seed)
        rng = np.random.default_rng(self.seed)
        if self.threads:
            torch.set_num_threads(self.threads)
        if self.loss not in ("mse", "ra"):
            raise HemkitError(f"{self.name}: unknown loss {self.loss!r} (mse or ra)")
        self.vocab_ = sorted(mpx.keys["event"].unique())
        feats, base, gap = self._prepare(mpx)
        self.base_ = base.astype(np.float32)
        # RA is a mean over series: with loss="ra" every series weighs the same, whatever its length
        w = (
            np.ones_like(base)
            if self.loss == "mse"
            else np.broadcast_to(mpx.length.mean() / np.maximum(mpx.length, 1)[:, None], base.shape)
        )
        self.weight_ = np.ascontiguousarray(w, dtype=np.float32)
        target = np.where(mpx.valid, np.log10(1 + np.nan_to_num(np.maximum(mpx.truth, 0))) - base, 0.0)
        t0 = time.perf_counter()
        self.model_ = self._build(torch, feats.shape[-1])
        self.loss_ = self._train(torch, rng, feats, target.astype(np.float32), gap)
        del self.base_, self.weight_
        self.fit_seconds_ = time.perf_counter() - t0
        self.n_series_ = int(len(mpx.keys))
        return self

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        torch = _torch()
        _check(mpx)
        if not hasattr(self, "model_"):
            raise HemkitError(f"{self.name}: fit the estimator (or load a fitted one) before estimating")
        if getattr(self, "threads", None):
            torch.set_num_threads(self.threads)
        feats, base, _ = self._prepare(mpx)
        self.model_.eval()
        with torch.no_grad():
            res = self._predict(torch, feats)
        est = 10 ** (base + res) - 1
        if getattr(self, "clip", False):
            vp, vn, _ = _gap_weights(mpx)
            est = np.clip(est, np.minimum(vp, vn), np.maximum(vp, vn))
        return _finish(mpx, est)

    def _error(self, torch, pred, target, base):
        """Per-interval training error: squared log10 error, or the relative error of Eq. (4)."""
        if self.loss == "mse":
            return (pred - target) ** 2
        est = torch.pow(10.0, (base + pred).clamp(max=12.0)) - 1
        true = torch.pow(10.0, base + target) - 1
        zero = true < 1e-6
        rel = torch.abs(est - true) / torch.where(zero, torch.full_like(true, 0.5), true)
        # RA scores a zero-truth interval 0 or 1 (hemkit.mpx.scores): cap its smooth stand-in at 1
        return torch.where(zero, torch.tanh(rel), torch.log1p(rel))

    def save(self, path) -> None:
        """Save parameters and weights (``torch.save``)."""
        torch = _torch()
        params = {k: v for k, v in vars(self).items() if not k.endswith("_")}
        torch.save(
            {
                "class": type(self).__name__,
                "params": params,
                "state": self.model_.state_dict(),
                "n_features": self.n_features_,
                "vocab": self.vocab_,
            },
            path,
        )

    @staticmethod
    def load(path) -> _TorchEstimator:
        """Load an estimator written by :meth:`save`."""
        torch = _torch()
        try:
            blob = torch.load(path, weights_only=False)
            cls = {"MLPEstimator": MLPEstimator, "BiGRUEstimator": BiGRUEstimator}[blob["class"]]
        except Exception as exc:
            raise HemkitError(f"{path}: not a saved hemkit mpx model ({exc.__class__.__name__})") from exc
        est = cls(**blob["params"])
        est.vocab_ = blob["vocab"]
        est.model_ = est._build(torch, blob["n_features"])
        est.model_.load_state_dict(blob["state"])
        return est


class MLPEstimator(_TorchEstimator):
    """MLP (paper Table 1: 128 and 64 hidden units, dropout 0.3, lr 3e-3) on a window of intervals.

    Examples
    --------
    >>> from hemkit.mpx.emulate import emulate
    >>> from hemkit.mpx.synthetic import synthetic_trace
    >>> m = emulate(synthetic_trace(runs=4, steps=60, seed=1), counters=2)
    >>> MLPEstimator(epochs=2).fit(m).estimate_array(m).shape == m.truth.shape
    True
    """

    name = "mlp"

    def __init__(
        self,
        hidden=(128, 64),
        dropout: float = 0.3,
        lr: float = 3e-3,
        epochs: int = 40,
        window: int = 3,
        batch_size: int = 1024,
        loss: str = "mse",
        base: str = "linear",
        clip: bool = True,
        seed: int = 0,
        threads: int | None = 1,
    ):
        self.hidden = tuple(hidden)
        self.loss = loss
        self.base = base
        self.clip = clip
        self.dropout = dropout
        self.lr = lr
        self.epochs = epochs
        self.window = window
        self.batch_size = batch_size
        self.seed = seed
        self.threads = threads

    def _build(self, torch, n_features: int):
        self.n_features_ = n_features
        nn = torch.nn
        layers, width = [], n_features * (2 * self.window + 1)
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU(), nn.Dropout(self.dropout)]
            width = h
        layers.append(_zero(nn.Linear(width, 1)))
        return nn.Sequential(*layers)

    def _train(self, torch, rng, feats, target, gap):
        X = torch.from_numpy(_windows(feats, self.window)[gap])
        y = torch.from_numpy(target[gap])
        base = torch.from_numpy(self.base_[gap])
        wt = torch.from_numpy(self.weight_[gap])
        opt = torch.optim.Adam(self.model_.parameters(), lr=self.lr)
        self.model_.train()
        losses = []
        for _ in range(self.epochs):
            order = torch.from_numpy(rng.permutation(len(y)))
            total = 0.0
            for b in range(0, len(y), self.batch_size):
                idx = order[b : b + self.batch_size]
                opt.zero_grad()
                loss = torch.mean(self._error(torch, self.model_(X[idx]).squeeze(-1), y[idx], base[idx]) * wt[idx])
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(idx)
            losses.append(total / max(len(y), 1))
        return losses

    def _predict(self, torch, feats):
        S, T, _ = feats.shape
        X = torch.from_numpy(_windows(feats, self.window).reshape(S * T, -1))
        return self.model_(X).squeeze(-1).numpy().reshape(S, T)


class BiGRUEstimator(_TorchEstimator):
    """Bidirectional GRU (paper Table 2: hidden 64, 3 layers, one linear output layer, lr 5e-3).

    Examples
    --------
    >>> from hemkit.mpx.emulate import emulate
    >>> from hemkit.mpx.synthetic import synthetic_trace
    >>> m = emulate(synthetic_trace(runs=4, steps=60, seed=1), counters=2)
    >>> BiGRUEstimator(hidden=8, layers=1, epochs=2).fit(m).estimate_array(m).shape == m.truth.shape
    True
    """

    name = "bigru"

    def __init__(
        self,
        hidden: int = 64,
        layers: int = 3,
        lr: float = 5e-3,
        epochs: int = 25,
        crop: int = 96,
        batch_size: int = 32,
        series_per_epoch: int | None = 512,
        loss: str = "mse",
        base: str = "linear",
        clip: bool = True,
        seed: int = 0,
        threads: int | None = 1,
    ):
        self.hidden = hidden
        self.loss = loss
        self.base = base
        self.clip = clip
        self.layers = layers
        self.lr = lr
        self.epochs = epochs
        self.crop = crop
        self.batch_size = batch_size
        self.series_per_epoch = series_per_epoch
        self.seed = seed
        self.threads = threads

    def _build(self, torch, n_features: int):
        self.n_features_ = n_features
        nn = torch.nn
        hidden, layers = self.hidden, self.layers

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.gru = nn.GRU(n_features, hidden, num_layers=layers, batch_first=True, bidirectional=True)
                self.out = _zero(nn.Linear(2 * hidden, 1))

            def forward(self, x):
                h, _ = self.gru(x)
                return self.out(h).squeeze(-1)

        return Net()

    def _train(self, torch, rng, feats, target, gap):
        S, T, _ = feats.shape
        crop = min(self.crop, T)
        lengths = gap.shape[1] - np.argmax(gap[:, ::-1], axis=1)  # last gap + 1 (crop start bound)
        X, y, m = torch.from_numpy(feats), torch.from_numpy(target), torch.from_numpy(gap.astype(np.float32))
        wt = torch.from_numpy(self.weight_)
        base = torch.from_numpy(self.base_)
        opt = torch.optim.Adam(self.model_.parameters(), lr=self.lr)
        self.model_.train()
        losses = []
        for _ in range(self.epochs):
            order = rng.permutation(S)[: self.series_per_epoch or S]
            starts = (rng.random(S) * np.maximum(lengths - crop, 0)).astype(int) if crop < T else np.zeros(S, int)
            total, count = 0.0, 0.0
            for b in range(0, S, self.batch_size):
                idx = order[b : b + self.batch_size]
                cols = starts[idx][:, None] + np.arange(crop)[None, :]
                rows = idx[:, None]
                xb, yb, mb = X[rows, cols], y[rows, cols], m[rows, cols]
                opt.zero_grad()
                err = self._error(torch, self.model_(xb), yb, base[rows, cols]) * mb * wt[rows, cols]
                loss = err.sum() / mb.sum().clamp(min=1.0)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model_.parameters(), 1.0)
                opt.step()
                total += float(err.detach().sum())
                count += float(mb.sum())
            losses.append(total / max(count, 1.0))
        return losses

    def _predict(self, torch, feats):
        out = []
        for b in range(0, len(feats), 256):
            out.append(self.model_(torch.from_numpy(feats[b : b + 256])).numpy())
        return np.concatenate(out) if out else np.zeros(feats.shape[:2])
