"""Models for export and tracing: a GPT-style decoder written with plain torch.nn, and the resolution of a
model specification ("torchvision:resnet18", "memplan_torch.models:gpt_small", "pkg.mod:Constructor") into a
module plus an example input batch."""

import ast
import importlib
import inspect
import math

import torch
from torch import nn

from .errors import MemplanTorchError
from .losses import KeywordInputs, SelectOutput


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention with explicit matmuls (no fused kernel), so that every
    intermediate (scores, probabilities) is a tensor the planners can see."""

    def __init__(self, dim, heads, dropout):
        super().__init__()
        if dim % heads:
            raise MemplanTorchError(f"gpt: dim {dim} is not a multiple of heads {heads}")
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        k = k.view(b, t, h, d // h).transpose(1, 2)
        v = v.view(b, t, h, d // h).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // h))
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
        probs = self.drop(torch.softmax(scores, dim=-1))
        y = (probs @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(y)


class Block(nn.Module):
    """Pre-norm transformer decoder block: x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, dim, heads, dropout):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, dropout)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim), nn.Dropout(dropout))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    """A GPT-style decoder-only language model (token and position embeddings, `layers` blocks, final norm,
    language-model head). Input: token ids (batch, seq_len), int64. Output: logits (batch, seq_len, vocab)."""

    def __init__(self, vocab=8192, seq_len=128, dim=256, heads=8, layers=4, dropout=0.1):
        super().__init__()
        self.seq_len = seq_len
        self.vocab = vocab
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(seq_len, dim)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList([Block(dim, heads, dropout) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        pos = torch.arange(t, device=idx.device)
        x = self.drop(self.tok(idx) + self.pos(pos))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))

    def example_input(self, batch):
        """Random token ids of this model's context length."""
        return torch.randint(0, self.vocab, (batch, self.seq_len))


def gpt_small():
    """The bundled GPT-style decoder: 4 layers, width 256, 8 heads, context 128, vocabulary 8192 (~5.4 M
    parameters), small enough to trace on two CPU cores."""
    return GPT()


def gpt_tiny():
    """A 2-layer, width-64 decoder for fast tests."""
    return GPT(vocab=512, seq_len=32, dim=64, heads=4, layers=2, dropout=0.0)


def transformer_block_tiny():
    """One decoder block (width 64, 4 heads, no dropout) taking (batch, 16, 64) activations: the
    'transformer block' of the schedule tests."""
    block = Block(64, 4, 0.0)
    block.example_input = lambda batch: torch.randn(batch, 16, 64)
    return block


class Encoder(nn.Module):
    """A BERT-style encoder (masked language model) on torch.nn.TransformerEncoder, shaped as Hugging Face's
    models are called: inputs (token ids, attention mask: 1 for a token, 0 for padding), both (batch,
    seq_len) int64; output a dict, {"logits": (batch, seq_len, vocab), "hidden_states": (batch, seq_len,
    dim)}, so that export-graph takes --model-output logits. Pre-norm layers, GELU, batch first: the attention
    output is a transposed view, and dropout follows it."""

    def __init__(self, vocab=8192, seq_len=128, dim=256, heads=4, layers=4, dropout=0.1):
        super().__init__()
        self.vocab, self.seq_len = vocab, seq_len
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(seq_len, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids, attention_mask):
        pos = torch.arange(ids.shape[1], device=ids.device)
        h = self.encoder(self.tok(ids) + self.pos(pos), src_key_padding_mask=attention_mask == 0)
        return {"logits": self.head(h), "hidden_states": h}

    def example_input(self, batch):
        """Random token ids and a mask that pads the last quarter of every sequence."""
        ids = torch.randint(0, self.vocab, (batch, self.seq_len))
        mask = torch.ones(batch, self.seq_len, dtype=torch.int64)
        mask[:, self.seq_len * 3 // 4:] = 0
        return ids, mask


def encoder_small():
    """The bundled encoder: 4 layers, width 256, 4 heads, context 128, vocabulary 8192 (~7.4 M parameters)."""
    return Encoder()


class LstmLm(nn.Module):
    """A recurrent language model: token ids (batch, seq_len) int64 -> logits (batch, seq_len, vocab), through a
    stacked nn.LSTM (batch first, dropout between its layers). torch traces the LSTM unrolled, step by step,
    into its cells' matrix products and gates."""

    def __init__(self, vocab=8192, seq_len=64, dim=256, layers=2, dropout=0.2):
        super().__init__()
        self.vocab, self.seq_len = vocab, seq_len
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim, num_layers=layers, batch_first=True, dropout=dropout)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        return self.head(self.lstm(self.embed(ids))[0])

    def example_input(self, batch):
        return torch.randint(0, self.vocab, (batch, self.seq_len))


def lstm_small():
    """The bundled recurrent model: 2 LSTM layers of width 256, 64 steps, vocabulary 8192 (~5.3 M parameters)."""
    return LstmLm()


def _constructor_arguments(spec, text):
    """The keyword arguments written in a model specification's parentheses ("aux_logits=False, dropout=0.1"),
    as a dict; literals only (numbers, strings, True, False, None, tuples, lists, dicts)."""
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
            raise ValueError("positional")
        return {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except (SyntaxError, ValueError) as e:
        raise MemplanTorchError(f"model '{spec}': constructor arguments must be NAME=LITERAL, separated by commas "
                                f"(e.g. torchvision:googlenet(aux_logits=False)), got '({text})'") from e


def _parameters(ctor):
    """The names of `ctor`'s parameters (none where Python cannot tell)."""
    try:
        return inspect.signature(ctor).parameters
    except (TypeError, ValueError):
        return {}


def load_model(spec):
    """Resolve "package.module:Constructor" (or "torchvision:name", a shorthand for torchvision.models), with
    optional keyword arguments in parentheses ("torchvision:resnet18(num_classes=10)"), and call the
    constructor (torchvision models get weights=None unless the specification says otherwise: random
    initialisation, nothing is downloaded). Any failure is a MemplanTorchError naming the specification."""
    head, kwargs = spec, {}
    if "(" in spec:
        if not spec.endswith(")"):
            raise MemplanTorchError(f"model '{spec}': expected MODULE:CONSTRUCTOR(NAME=VALUE, ...), with the closing "
                                    "parenthesis last")
        head = spec[:spec.index("(")]
        kwargs = _constructor_arguments(spec, spec[spec.index("(") + 1:-1])
    if ":" not in head:
        raise MemplanTorchError(f"model '{spec}': expected MODULE:CONSTRUCTOR, e.g. torchvision:resnet18")
    module_name, attr = head.split(":", 1)
    if module_name == "torchvision":
        module_name = "torchvision.models"
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise MemplanTorchError(f"model '{spec}': cannot import module '{module_name}': {e}") from e
    ctor = getattr(module, attr, None)
    if ctor is None or not callable(ctor):
        raise MemplanTorchError(f"model '{spec}': module '{module_name}' has no constructor '{attr}'")
    if module_name.startswith("torchvision.models") and "weights" in _parameters(ctor):
        kwargs.setdefault("weights", None)
    try:
        model = ctor(**kwargs)
    except Exception as e:
        raise MemplanTorchError(f"model '{spec}': the constructor failed: {type(e).__name__}: {e}") from e
    if not isinstance(model, nn.Module):
        raise MemplanTorchError(f"model '{spec}': the constructor returned {type(model).__name__}, not a "
                                "torch.nn.Module")
    return model


def parse_shape(text):
    """"3,224,224" -> (3, 224, 224); a clear error for anything else."""
    try:
        dims = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        dims = ()
    if not dims or any(d <= 0 for d in dims):
        raise MemplanTorchError(f"--input-shape '{text}': expected positive integers separated by commas")
    return dims


def parse_input_shape(text):
    """An --input-shape: "3,224,224" -> (None, (3, 224, 224)), an input passed by position; "labels=128" ->
    ("labels", (128,)), one passed by keyword (KeywordInputs)."""
    name, named, dims = text.partition("=")
    if not named:
        return None, parse_shape(text)
    if not name.strip().isidentifier():
        raise MemplanTorchError(f"--input-shape '{text}': expected NAME=SHAPE with NAME a keyword argument of the "
                                "model's forward, e.g. labels=128")
    try:
        return name.strip(), parse_shape(dims)
    except MemplanTorchError:
        raise MemplanTorchError(f"--input-shape '{text}': expected positive integers separated by commas after "
                                f"'{name.strip()}='") from None


def example_input(model, batch, input_shape=None, input_dtype="float32"):
    """An input batch for `model`: its own example_input(batch) if it has one, else a random tensor of shape
    (batch, *input_shape) (default 3,224,224: an image), floats from randn, integers and booleans 0 or 1 (token
    ids, masks)."""
    if batch <= 0:
        raise MemplanTorchError(f"--batch {batch}: must be positive")
    if input_shape is None and hasattr(model, "example_input"):
        return model.example_input(batch)
    shape = (batch,) + (input_shape or (3, 224, 224))
    dtype = getattr(torch, input_dtype, None)
    if not isinstance(dtype, torch.dtype):
        raise MemplanTorchError(f"--input-dtype '{input_dtype}': not a torch dtype")
    integers = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool)
    if not (dtype.is_floating_point or dtype in integers):  # not complex, quantized or another kind
        raise MemplanTorchError(f"--input-dtype '{input_dtype}': expected a floating-point, integer or bool dtype")
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype)
    return torch.randint(0, 2, shape, dtype=dtype)


def example_inputs(model, batch, input_shapes=(), input_dtypes=()):
    """One batch of each of `model`'s inputs, as a tuple: without input_shapes, its own example_input(batch) (a
    tensor, or a tuple of them) or else one image batch (example_input, of input_dtypes' one dtype); with them,
    one random tensor (batch, *shape) per shape (parse_shape), of the dtype at its position in input_dtypes, or
    of its one dtype (default float32), in order, so that one input draws as example_input does."""
    dtypes = tuple(input_dtypes) or ("float32",)
    wanted = max(1, len(input_shapes))
    if len(dtypes) == 1:
        dtypes *= wanted
    if len(dtypes) != wanted:
        raise MemplanTorchError(f"--input-dtype given {len(input_dtypes)} times for {len(input_shapes)} "
                                "--input-shape: give one dtype for every input, or one for each, in order")
    if not input_shapes:
        x = example_input(model, batch, None, dtypes[0])
        return tuple(x) if isinstance(x, (tuple, list)) else (x,)
    return tuple(example_input(model, batch, shape, dtype) for shape, dtype in zip(input_shapes, dtypes))


def to_device(model, inputs, device):
    """(model, inputs) moved to `device` (a torch device name: cpu, cuda, cuda:1); a clear error for a name torch
    does not know or a device this machine lacks."""
    try:
        device = torch.device(device)
    except RuntimeError as e:
        raise MemplanTorchError(f"--device '{device}': not a torch device ({e})") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise MemplanTorchError(f"--device '{device}': torch {torch.__version__} sees no CUDA device here")
    if device.type == "cpu":  # the models and batches start there
        return model, inputs
    return model.to(device), tuple(x.to(device) for x in inputs)


def load_model_and_inputs(spec, batch, input_shapes=(), input_dtypes=(), output=None, input_names=()):
    """(model, make_inputs): load_model(spec), in a losses.KeywordInputs where `input_names` (one per input shape,
    None for an input passed by position) names any, in a losses.SelectOutput where `output` names the tensor its
    loss takes (--model-output), and a function that makes one batch of its inputs (example_inputs, a tuple)."""
    model = wrapped = load_model(spec)
    if any(name is not None for name in input_names):
        wrapped = KeywordInputs(model, input_names)

    def make_inputs():
        return example_inputs(model, batch, input_shapes, input_dtypes)

    return (wrapped if output is None else SelectOutput(wrapped, output)), make_inputs
