"""Learned multiplexing estimators: MLP and bidirectional GRU (Wang, Wang & Lin 2022, section 3).

Both map the multiplexed series to the OCOE series on a ``log10`` scale, as in the paper,
trained by default with its mean squared error.  hemkit's set-up:

* **Inputs** per interval are the features of :mod:`hemkit.mpx.features` (the interpolations'
  estimates, where the slices are, the other events of the run) plus the event's identity
  (one-hot over the events seen in training).  The MLP sees a window of ``2 * window + 1``
  intervals, the Bi-GRU the whole sequence (random crops of ``crop`` intervals in training).
* **Normalisation** of every feature (mean and standard deviation) is fitted on the training
  data only and stored in the model.
* **The target** is the *residual* ``log10(1 + true) - log10(1 + start)`` where ``start`` is
  an interpolation estimator (``base``, default the phase-aware one): the networks learn a
  correction, and an untrained network (its output layer starts at zero) returns ``start``.
* **The loss** counts only intervals where the event was off its counter (the others are
  exact).  ``loss="mse"`` (default) is the paper's mean squared error of log10 counts;
  ``loss="ra"`` a smooth relative error of Eq. (4), each series weighted equally.
* **Early stopping** on the validation loss (section 3.3: 7:1:2 split by workload, see
  :func:`hemkit.mpx.fitting.fit_estimator`): the weights of the best validation epoch are
  kept, and training stops after ``patience`` epochs without improvement.
* ``clip=True`` (default): an estimate stays between the rates of the two slices around its
  gap -- a network may not invent a burst no slice saw.
* **Model files** (:meth:`save`, :func:`load_model`) carry the events, the window, the
  normalisation, the feature names and the training history; a model applied to events it
  was not trained on is refused by name.  Files load with ``weights_only=True``: no code runs.
* **Randomness**: one ``seed`` (:mod:`hemkit.core.rng`); initial weights, dropout masks,
  shuffles and crops all come from local generators, never from torch's global seed.

Paper hyper-parameters: MLP 128/64 hidden units, dropout 0.3, lr 3e-3, 1200 epochs; Bi-GRU
hidden 64, 3 layers, lr 5e-3, 600 epochs, batch size 1.  hemkit keeps the layer sizes and
learning rates, trains in mini-batches for far fewer epochs on one thread (minutes on two
shared cores) and stops early.

PyTorch is imported lazily (extra ``hemkit[learn]``); without it these raise :class:`SetupError`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hemkit.core.checks import check_scalar
from hemkit.core.errors import InputError, SetupError
from hemkit.core.progress import ProgressLike, as_progress
from hemkit.core.rng import child, integer_seed
from hemkit.io.mpx import read_model, write_model
from hemkit.mpx.emulate import MpxData
from hemkit.mpx.estimators import MpxEstimator, check_data, finish, neighbours
from hemkit.mpx.features import FEATURES, interpolation_features
from hemkit.mpx.phase import INTERPOLATIONS


def _torch() -> Any:
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the environment
        raise SetupError("the mlp and bigru estimators need PyTorch: pip install 'hemkit[learn]'") from None
    return torch


@dataclass(frozen=True)
class TrainOptions:
    """How a learned estimator trains.

    Attributes
    ----------
    epochs : int
        Most epochs (training may stop earlier, see ``patience``).
    lr : float or None
        Adam's learning rate; None: the paper's (MLP 3e-3, Bi-GRU 5e-3).
    batch_size : int or None
        Intervals (MLP, default 1024) or crops (Bi-GRU, default 32) per step.
    patience : int
        Epochs without a better validation loss before training stops (0: never stop early).
    seed : int or None
        The one seed of every random choice (weights, dropout, shuffles, crops).
    threads : int or None
        torch threads while training and estimating (None: torch's default).
    loss : {"mse", "ra"}
        The paper's MSE of log10 counts, or a smooth relative error of Eq. (4).
    per_epoch : int or None
        Training examples drawn (without replacement) per epoch: intervals for the MLP,
        crops for the Bi-GRU; None: the model's default (200 000 intervals, 512 crops);
        0: all of them.
    """

    epochs: int = 40
    lr: float | None = None
    batch_size: int | None = None
    patience: int = 5
    seed: int | None = 0
    threads: int | None = 1
    loss: str = "mse"
    per_epoch: int | None = None

    def __post_init__(self) -> None:
        check_scalar(self.epochs, "epochs", min_val=1)
        check_scalar(self.patience, "patience", min_val=0)
        check_scalar(self.seed, "seed", min_val=0, allow_none=True)
        check_scalar(self.threads, "threads", min_val=1, allow_none=True)
        check_scalar(self.batch_size, "batch_size", min_val=1, allow_none=True)
        check_scalar(self.per_epoch, "per_epoch", min_val=0, allow_none=True)
        check_scalar(self.lr, "lr", "real", min_val=0, max_val=10, closed="neither", allow_none=True)
        if self.loss not in ("mse", "ra"):
            raise InputError(f"loss must be 'mse' or 'ra', got {self.loss!r}")


class _threads:
    """Set torch's thread count for a block and put it back after."""

    def __init__(self, torch: Any, n: int | None):
        self.torch, self.n, self.old = torch, n, None

    def __enter__(self) -> None:
        if self.n:
            self.old = self.torch.get_num_threads()
            self.torch.set_num_threads(self.n)

    def __exit__(self, *exc: object) -> None:
        if self.old is not None:
            self.torch.set_num_threads(self.old)


def _rates_bounds(mpx: MpxData) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest count an interval may get: the slices' rates around its gap x its enabled time."""
    obs = mpx.observed
    ena = np.where(mpx.valid, np.nan_to_num(mpx.enabled), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(obs & (ena > 0), np.nan_to_num(mpx.perf_values()) / np.where(ena > 0, ena, 1.0), np.nan)
    prev, nxt = neighbours(obs)
    T = obs.shape[1]
    p = np.where(prev >= 0, prev, np.where(nxt < T, nxt, 0)).clip(0, T - 1)
    n = np.where(nxt < T, nxt, p).clip(0, T - 1)
    rows = np.arange(obs.shape[0])[:, None]
    rp, rn = np.nan_to_num(rate[rows, p]), np.nan_to_num(rate[rows, n])
    return np.minimum(rp, rn) * ena, np.maximum(rp, rn) * ena


class _TorchEstimator(MpxEstimator):
    """What the MLP and the Bi-GRU share: features, normalisation, training loop, saving."""

    base: str
    clip: bool
    train: TrainOptions
    default_lr: float = 1e-3

    def _build(self, torch: Any, n_features: int, rng: np.random.Generator) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _epoch(self, torch: Any, opt: Any, data: _Data, rng: np.random.Generator) -> float:  # pragma: no cover
        raise NotImplementedError

    def _predict(self, torch: Any, feats: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # ---------------------------------------------------------------- data
    def _inputs(self, mpx: MpxData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Normalised features (S, T, F), log10 start estimate (S, T), gap mask (S, T)."""
        feats = interpolation_features(mpx)
        code = pd.Index(self.events_).get_indexer(mpx.keys["event"])
        onehot = np.zeros((len(code), len(self.events_)), np.float32)
        onehot[np.arange(len(code)), code] = 1.0
        onehot = np.broadcast_to(onehot[:, None, :], (*feats.shape[:2], onehot.shape[1]))
        feats = np.concatenate([feats, np.where(mpx.valid[..., None], onehot, 0.0)], axis=-1).astype(np.float32)
        if hasattr(self, "norm_mean_"):
            feats = np.where(mpx.valid[..., None], (feats - self.norm_mean_) / self.norm_std_, 0.0).astype(np.float32)
        if self.base not in INTERPOLATIONS:
            raise InputError(f"{self.name}: unknown base estimator {self.base!r} ({', '.join(INTERPOLATIONS)})")
        start = INTERPOLATIONS[self.base]().estimate_array(mpx)
        base = np.log10(1 + np.nan_to_num(np.maximum(start, 0))).astype(np.float32)
        gap = mpx.valid & ~mpx.known
        return feats, base, gap

    def _check_events(self, mpx: MpxData) -> None:
        unknown = sorted(set(mpx.keys["event"]) - set(self.events_))
        if unknown:
            raise InputError(
                f"{self.name} model was trained on events {', '.join(self.events_)}; it knows nothing of "
                f"{', '.join(map(repr, unknown))} (train a model on traces of these events)"
            )

    # ---------------------------------------------------------------- fit / estimate
    def fit(self, mpx: MpxData, validation: MpxData | None = None, progress: ProgressLike = None) -> _TorchEstimator:
        """Train on ``mpx`` (emulated, with truth); stop early on the loss over ``validation``.

        Without ``validation`` training runs all ``epochs`` (no early stopping).
        """
        torch = _torch()
        check_data(mpx)
        if mpx.truth is None:
            raise InputError(f"{self.name}: training needs the true counts (emulate from OCOE traces)")
        if validation is not None:
            check_data(validation)
            if validation.truth is None:
                raise InputError(f"{self.name}: the validation data needs the true counts")
        for attr in ("norm_mean_", "norm_std_"):
            if hasattr(self, attr):
                delattr(self, attr)
        self.events_ = sorted(mpx.keys["event"].astype(str).unique())
        if validation is not None:
            self._check_events(validation)
        feats, base, gap = self._inputs(mpx)
        if not gap.any():
            raise InputError(f"{self.name}: no interval of the training data is off its counter; nothing to learn")
        sel = feats[mpx.valid]  # every interval a window may show, of the training data only
        std = sel.std(axis=0)
        self.norm_mean_ = sel.mean(axis=0).astype(np.float32)
        self.norm_std_ = np.where(std > 1e-3, std, 1.0).astype(np.float32)  # a constant feature stays as is
        feats = np.where(mpx.valid[..., None], (feats - self.norm_mean_) / self.norm_std_, 0.0).astype(np.float32)
        target = np.where(mpx.valid, np.log10(1 + np.nan_to_num(np.maximum(mpx.truth, 0))) - base, 0.0)
        weight = np.broadcast_to(mpx.length.mean() / np.maximum(mpx.length, 1)[:, None], base.shape)
        train = _Data(feats, target.astype(np.float32), base, gap, np.ascontiguousarray(weight, dtype=np.float32))
        val = None
        if validation is not None:
            vf, vb, vg = self._inputs(validation)
            vtruth = np.asarray(validation.truth)
            vt = np.where(validation.valid, np.log10(1 + np.nan_to_num(np.maximum(vtruth, 0))) - vb, 0.0)
            vw = np.broadcast_to(validation.length.mean() / np.maximum(validation.length, 1)[:, None], vb.shape)
            val = _Data(vf, vt.astype(np.float32), vb, vg, np.ascontiguousarray(vw, dtype=np.float32))
        seed = self.train.seed
        with _threads(torch, self.train.threads):
            self.n_features_ = feats.shape[-1]
            self.model_ = self._build(torch, self.n_features_, child(seed, "init"))
            self._fit_loop(torch, train, val, child(seed, "train"), progress)
        self.n_series_ = int(len(mpx.keys))
        return self

    def estimate_array(self, mpx: MpxData) -> np.ndarray:
        """Estimated counts, (S, T)."""
        torch = _torch()
        check_data(mpx)
        if not hasattr(self, "model_"):
            raise InputError(f"{self.name}: fit the estimator (or load a fitted one) before estimating")
        self._check_events(mpx)
        feats, base, _ = self._inputs(mpx)
        self.model_.eval()
        with _threads(torch, self.train.threads), torch.no_grad():
            res = self._predict(torch, feats)
        est = np.power(10.0, np.clip(base + res, 0, 15)) - 1
        if self.clip:
            low, high = _rates_bounds(mpx)
            est = np.clip(est, low, high)
        return finish(mpx, est)

    def estimate_with_totals(self, mpx: MpxData) -> tuple[np.ndarray, np.ndarray]:
        """The network's series and, per series, the total checked on its hidden slices.

        A network trained on relative accuracy leans low in the gaps, as interpolations do, so
        its sums are not the best totals: each series' total is that of the network, of
        ``phase`` or of ``linear`` interpolation, whichever predicted the series' own hidden
        slices best, with the other runs of its workload (:mod:`hemkit.mpx.checked`,
        :func:`hemkit.mpx.checked.runs_checks`).
        """
        from hemkit.mpx.checked import CheckedEstimation

        return CheckedEstimation(series=(self,), totals=(self, "phase", "linear")).estimate_with_totals(mpx)

    def _error(self, torch: Any, pred: Any, target: Any, base: Any) -> Any:
        """Per-interval training error: squared log10 error, or the smooth relative error of Eq. (4)."""
        if self.train.loss == "mse":
            return (pred - target) ** 2
        est = torch.pow(10.0, (base + pred).clamp(max=12.0)) - 1
        true = torch.pow(10.0, base + target) - 1
        zero = true < 1e-6
        rel = torch.abs(est - true) / torch.where(zero, torch.full_like(true, 0.5), true)
        return torch.where(zero, torch.tanh(rel), torch.log1p(rel))

    def _fit_loop(
        self, torch: Any, train: _Data, val: _Data | None, rng: np.random.Generator, progress: ProgressLike
    ) -> None:
        lr = self.train.lr or self.default_lr
        opt = torch.optim.Adam(self.model_.parameters(), lr=lr)
        history = []
        best, best_state, best_epoch, waited = np.inf, None, 0, 0
        self.steps_ = 0
        with as_progress(progress).task(f"training {self.name}", total=self.train.epochs) as task:
            for epoch in range(1, self.train.epochs + 1):
                self.model_.train()
                train_loss = self._epoch(torch, opt, train, rng)
                val_loss = self._loss(torch, val) if val is not None else np.nan
                history.append({"epoch": epoch, "train_loss": train_loss, "validation_loss": val_loss})
                info = f"epoch {epoch}: train loss {train_loss:.4g}" + (
                    f", validation loss {val_loss:.4g}" if val is not None else ""
                )
                task.update(completed=epoch, info=info)
                if val is None:
                    continue
                if val_loss < best - 1e-9:
                    best, best_epoch, waited = val_loss, epoch, 0
                    best_state = {k: v.detach().clone() for k, v in self.model_.state_dict().items()}
                else:
                    waited += 1
                    if self.train.patience and waited >= self.train.patience:
                        break
        if best_state is not None:
            self.model_.load_state_dict(best_state)
        self.history_ = pd.DataFrame(history, columns=["epoch", "train_loss", "validation_loss"])
        self.best_epoch_ = best_epoch if val is not None else len(history)

    def _loss(self, torch: Any, data: _Data) -> float:
        """Mean error over the gap intervals of ``data`` (no gradient)."""
        self.model_.eval()
        with torch.no_grad():
            pred = torch.from_numpy(self._predict(torch, data.feats))
        err = self._error(torch, pred, torch.from_numpy(data.target), torch.from_numpy(data.base))
        m = torch.from_numpy(data.gap.astype(np.float32)) * torch.from_numpy(data.weight)
        return float((err * m).sum() / m.sum().clamp(min=1e-12))

    # ---------------------------------------------------------------- files
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the fitted model (parameters, weights, events, window, normalisation, history), atomically."""
        torch = _torch()
        if not hasattr(self, "model_"):
            raise InputError(f"{self.name}: nothing to save, fit the estimator first")
        params = self.get_params()
        params["train"] = asdict(self.train)
        if "hidden" in params and isinstance(params["hidden"], tuple):
            params["hidden"] = list(params["hidden"])
        blob = {
            "class": type(self).__name__,
            "params": params,
            "events": list(self.events_),
            "window": int(getattr(self, "window", 0)),
            "features": list(FEATURES),
            "n_features": int(self.n_features_),
            "norm_mean": torch.from_numpy(self.norm_mean_.copy()),
            "norm_std": torch.from_numpy(self.norm_std_.copy()),
            "state": self.model_.state_dict(),
            "history": {c: [float(x) for x in self.history_[c]] for c in self.history_.columns},
            "best_epoch": int(self.best_epoch_),
        }
        return write_model(blob, path)


@dataclass
class _Data:
    feats: np.ndarray
    target: np.ndarray
    base: np.ndarray
    gap: np.ndarray
    weight: np.ndarray


def _init(torch: Any, model: Any, rng: np.random.Generator) -> None:
    """PyTorch's default initialisation (uniform +-1/sqrt(fan)), drawn from a local generator."""
    g = torch.Generator()
    g.manual_seed(integer_seed(rng))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.startswith("gru."):
                bound = 1.0 / np.sqrt(model.gru.hidden_size)
            else:
                fan_in = p.shape[1] if p.dim() > 1 else p.shape[0]
                bound = 1.0 / np.sqrt(max(fan_in, 1))
            p.uniform_(-bound, bound, generator=g)
        out = model.out if hasattr(model, "out") else model[-1]
        out.weight.zero_()  # an untrained network returns its start estimator exactly
        out.bias.zero_()


def _dropout_module(torch: Any) -> Any:
    class Dropout(torch.nn.Module):
        """Dropout whose masks come from a local generator (never torch's global seed)."""

        def __init__(self, p: float):
            super().__init__()
            self.p = p
            self.generator = torch.Generator()

        def forward(self, x: Any) -> Any:
            if not self.training or self.p <= 0:
                return x
            keep = (torch.rand(x.shape, generator=self.generator) >= self.p).to(x.dtype)
            return x * keep / (1 - self.p)

    return Dropout


class MLPEstimator(_TorchEstimator):
    """MLP (paper Table 1: 128 and 64 hidden units, dropout 0.3, lr 3e-3) on a window of intervals.

    Parameters
    ----------
    hidden : sequence of int
        Hidden layer widths.
    dropout : float
        Dropout after each hidden layer.
    window : int
        Intervals before and after the estimated one that the network sees.
    base : str
        The interpolation the network corrects (``phase``, ``linear``, ``growth``, ``fixed``, ``min``).
    clip : bool
        Keep estimates between the rates of the slices around their gap.
    train : TrainOptions
        Epochs, learning rate, batch size, early stopping, seed, threads, loss.

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace
    >>> m = emulate(synthetic_trace(runs=4, steps=60, seed=1), pmcs=2)
    >>> est = MLPEstimator(hidden=(16,), train=TrainOptions(epochs=2)).fit(m)
    >>> est.estimate_array(m).shape == m.truth.shape
    True
    """

    name = "mlp"
    default_lr = 3e-3

    def __init__(
        self,
        hidden: Sequence[int] = (128, 64),
        dropout: float = 0.3,
        window: int = 3,
        base: str = "phase",
        clip: bool = True,
        train: TrainOptions = TrainOptions(),
    ):
        self.hidden = tuple(hidden)
        self.dropout = dropout
        self.window = window
        self.base = base
        self.clip = clip
        self.train = train

    def _build(self, torch: Any, n_features: int, rng: np.random.Generator) -> Any:
        for h in self.hidden:
            check_scalar(h, "hidden", min_val=1, what="mlp layer widths")
        check_scalar(self.dropout, "dropout", "real", min_val=0, max_val=1, closed="left", what="mlp")
        check_scalar(self.window, "window", min_val=0, what="mlp")
        nn = torch.nn
        Dropout = _dropout_module(torch)
        layers: list[Any] = []
        width = n_features * (2 * self.window + 1)
        with torch.random.fork_rng(devices=[]):  # construction draws from torch's global generator: leave it as it was
            for h in self.hidden:
                layers += [nn.Linear(width, int(h)), nn.ReLU(), Dropout(self.dropout)]
                width = int(h)
            layers.append(nn.Linear(width, 1))
            model = nn.Sequential(*layers)
        _init(torch, model, rng)
        for k, m in enumerate(mod for mod in model if isinstance(mod, Dropout)):
            m.generator.manual_seed(integer_seed(child(rng, "dropout", k)))
        return model

    def _windows(self, torch: Any, feats: Any, rows: Any, cols: Any) -> Any:
        """Features of ``window`` intervals around each (row, col), flattened: (B, (2w+1) F)."""
        w = self.window
        offs = torch.arange(-w, w + 1)
        T = feats.shape[1]
        c = cols[:, None] + offs[None, :]
        inside = ((c >= 0) & (c < T)).unsqueeze(-1)
        x = feats[rows[:, None], c.clamp(0, T - 1)] * inside
        return x.reshape(len(rows), -1)

    def _epoch(self, torch: Any, opt: Any, data: _Data, rng: np.random.Generator) -> float:
        rows, cols = np.nonzero(data.gap)
        feats = torch.from_numpy(data.feats)
        y = torch.from_numpy(data.target[rows, cols])
        base = torch.from_numpy(data.base[rows, cols])
        wt = torch.from_numpy(data.weight[rows, cols])
        rows_t, cols_t = torch.from_numpy(rows), torch.from_numpy(cols)
        n = 200_000 if self.train.per_epoch is None else self.train.per_epoch
        order = torch.from_numpy(rng.permutation(len(rows))[: n or len(rows)])
        bs = self.train.batch_size or 1024
        total = 0.0
        for b in range(0, len(order), bs):
            idx = order[b : b + bs]
            opt.zero_grad()
            pred = self.model_(self._windows(torch, feats, rows_t[idx], cols_t[idx])).squeeze(-1)
            loss = torch.mean(self._error(torch, pred, y[idx], base[idx]) * wt[idx])
            loss.backward()
            opt.step()
            self.steps_ += 1
            total += float(loss.detach()) * len(idx)
        return total / max(len(order), 1)

    def _predict(self, torch: Any, feats: np.ndarray) -> np.ndarray:
        S, T, _ = feats.shape
        f = torch.from_numpy(feats)
        out = np.zeros((S, T), np.float32)
        rows, cols = np.nonzero(np.ones((S, T), bool))
        for b in range(0, len(rows), 65536):
            r, c = torch.from_numpy(rows[b : b + 65536]), torch.from_numpy(cols[b : b + 65536])
            out[rows[b : b + 65536], cols[b : b + 65536]] = (
                self.model_(self._windows(torch, f, r, c)).squeeze(-1).numpy()
            )
        return out


class BiGRUEstimator(_TorchEstimator):
    """Bidirectional GRU (paper Table 2: hidden 64, 3 layers, one linear output layer, lr 5e-3).

    Parameters
    ----------
    hidden : int
        GRU hidden units per direction.
    layers : int
        Stacked GRU layers.
    crop : int
        Training crop length (intervals).
    base, clip, train
        As for :class:`MLPEstimator`.

    Examples
    --------
    >>> from hemkit.mpx import emulate, synthetic_trace
    >>> m = emulate(synthetic_trace(runs=4, steps=60, seed=1), pmcs=2)
    >>> est = BiGRUEstimator(hidden=8, layers=1, train=TrainOptions(epochs=2)).fit(m)
    >>> est.estimate_array(m).shape == m.truth.shape
    True
    """

    name = "bigru"
    default_lr = 5e-3

    def __init__(
        self,
        hidden: int = 64,
        layers: int = 3,
        crop: int = 96,
        base: str = "phase",
        clip: bool = True,
        train: TrainOptions = TrainOptions(epochs=25),
    ):
        self.hidden = hidden
        self.layers = layers
        self.crop = crop
        self.base = base
        self.clip = clip
        self.train = train

    def _build(self, torch: Any, n_features: int, rng: np.random.Generator) -> Any:
        for name, value in (("hidden", self.hidden), ("layers", self.layers), ("crop", self.crop)):
            check_scalar(value, name, min_val=1, what="bigru")
        nn = torch.nn
        hidden, layers = int(self.hidden), int(self.layers)
        module: Any = nn.Module

        class Net(module):
            def __init__(self) -> None:
                super().__init__()
                self.gru = nn.GRU(n_features, hidden, num_layers=layers, batch_first=True, bidirectional=True)
                self.out = nn.Linear(2 * hidden, 1)

            def forward(self, x: Any) -> Any:
                h, _ = self.gru(x)
                return self.out(h).squeeze(-1)

        with torch.random.fork_rng(devices=[]):
            model = Net()
        _init(torch, model, rng)
        return model

    def _epoch(self, torch: Any, opt: Any, data: _Data, rng: np.random.Generator) -> float:
        S, T, _ = data.feats.shape
        crop = min(int(self.crop), T)
        last = T - np.argmax(data.gap[:, ::-1], axis=1)  # last gap + 1 bounds a crop's start
        X, y = torch.from_numpy(data.feats), torch.from_numpy(data.target)
        m = torch.from_numpy(data.gap.astype(np.float32))
        wt, base = torch.from_numpy(data.weight), torch.from_numpy(data.base)
        n = 512 if self.train.per_epoch is None else self.train.per_epoch
        order = rng.permutation(S)[: n or S]
        starts = (rng.random(S) * np.maximum(last - crop, 0)).astype(int) if crop < T else np.zeros(S, int)
        bs = self.train.batch_size or 32
        total, count = 0.0, 0.0
        for b in range(0, len(order), bs):  # over the chosen series only: no empty batch ever steps
            idx = order[b : b + bs]
            cols = starts[idx][:, None] + np.arange(crop)[None, :]
            rows = idx[:, None]
            mb = m[rows, cols]
            if float(mb.sum()) == 0:
                continue
            opt.zero_grad()
            err = self._error(torch, self.model_(X[rows, cols]), y[rows, cols], base[rows, cols]) * mb * wt[rows, cols]
            loss = err.sum() / mb.sum()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model_.parameters(), 1.0)
            opt.step()
            self.steps_ += 1
            total += float(err.detach().sum())
            count += float(mb.sum())
        return total / max(count, 1.0)

    def _predict(self, torch: Any, feats: np.ndarray) -> np.ndarray:
        out = [self.model_(torch.from_numpy(feats[b : b + 256])).numpy() for b in range(0, len(feats), 256)]
        return np.concatenate(out) if out else np.zeros(feats.shape[:2], np.float32)


CLASSES: dict[str, type[_TorchEstimator]] = {"MLPEstimator": MLPEstimator, "BiGRUEstimator": BiGRUEstimator}


def load_model(path: str | os.PathLike[str]) -> _TorchEstimator:
    """Load a model written by :meth:`_TorchEstimator.save` (``weights_only``: no code is run).

    Raises
    ------
    InputError
        The file is not a hemkit model (or a damaged one).
    """
    torch = _torch()
    path = Path(os.fspath(path))
    blob = read_model(path)
    if blob.get("class") not in CLASSES:
        raise InputError(f"{path}: not a saved hemkit mpx model (hemkit mpx fit writes them)")
    if list(blob.get("features", [])) != list(FEATURES):
        raise InputError(f"{path}: a model fitted on other interpolation features (an older hemkit); fit it again")
    try:
        params = dict(blob["params"])
        params["train"] = TrainOptions(**params["train"])
        est = CLASSES[blob["class"]](**params)
        est.events_ = [str(e) for e in blob["events"]]
        est.norm_mean_ = blob["norm_mean"].numpy().astype(np.float32)
        est.norm_std_ = blob["norm_std"].numpy().astype(np.float32)
        est.n_features_ = int(blob["n_features"])
        est.model_ = est._build(torch, est.n_features_, child(params["train"].seed, "init"))
        est.model_.load_state_dict(blob["state"])
        est.history_ = pd.DataFrame(blob["history"])
        est.best_epoch_ = int(blob["best_epoch"])
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as exc:
        raise InputError(f"{path}: a damaged hemkit mpx model ({type(exc).__name__}: {exc})") from None
    return est


__all__ = ["BiGRUEstimator", "MLPEstimator", "TrainOptions", "load_model"]
