"""train_step.py - real PyTorch training steps for tests/gpu/e2e.sh (issue 5).

usage: python3 train_step.py transformer|resnet18 [STEPS]

Workloads whose kernels nobody here wrote: the profiler must make sense of
cuBLAS/cuDNN/PyTorch kernels. Random data, fixed seeds, bf16 autocast (the
GEMMs and convolutions run on the tensor cores), AdamW/SGD, WARMUP steps then
STEPS timed steps. Prints "train_<model> step_ms=<median> steps=<n> loss=<x>"
(the conf's PERF_GREP matches "^train_").

transformer: 6-layer encoder (d_model 1024, 16 heads, FFN 4096, pre-norm),
    token embedding + LM head over a 16384-token vocabulary, batch 16 x 512
    tokens, cross-entropy on shifted random tokens.
resnet18: torchvision ResNet-18, 1000 classes, batch 64 x 3 x 224 x 224,
    channels-last, SGD with momentum.
"""
import statistics
import sys
import time

import torch

WARMUP = 3


def transformer():
    vocab, d, seq, batch = 16384, 1024, 512, 16

    class LM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(vocab, d)
            layer = torch.nn.TransformerEncoderLayer(d, 16, 4096, dropout=0.0, batch_first=True,
                                                     norm_first=True, activation="gelu")
            self.enc = torch.nn.TransformerEncoder(layer, 6, enable_nested_tensor=False)
            self.head = torch.nn.Linear(d, vocab)

        def forward(self, x):
            mask = torch.nn.Transformer.generate_square_subsequent_mask(seq, device=x.device)
            return self.head(self.enc(self.emb(x), mask=mask, is_causal=True))

    model = LM().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tok = torch.randint(0, vocab, (batch, seq + 1), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tok[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.float().view(-1, vocab),
                                                     tok[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        return loss
    return step


def resnet18():
    import torchvision
    model = torchvision.models.resnet18(num_classes=1000).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "transformer"
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    torch.manual_seed(0)
    torch.cuda.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    step = {"transformer": transformer, "resnet18": resnet18}[name]()
    for _ in range(WARMUP):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        loss = step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    print(f"train_{name} step_ms={statistics.median(times):.3f} steps={steps} "
          f"loss={loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
