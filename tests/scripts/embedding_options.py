"""nn.Embedding and F.embedding with max_norm (the rows used rescaled in place, the weight's version moving on),
norm_type, scale_grad_by_freq (each row's gradient divided by its count in the batch) and padding_idx together."""

import sys

torch = __import__(sys.argv[1])
F = torch.nn.functional

torch.manual_seed(0)
emb = torch.nn.Embedding(6, 3, max_norm=1.0)
print(emb, emb.weight.norm(dim=1))
idx = torch.tensor([[1, 2, 2], [4, 1, 0]])
out = emb(idx)
print(out, emb.weight.norm(dim=1), emb.weight._version)
out.sum().backward()
print(emb.weight.grad)
torch.manual_seed(1)
freq = torch.nn.Embedding(5, 2, scale_grad_by_freq=True, padding_idx=0)
print(freq)
(freq(torch.tensor([3, 3, 3, 1, 0, 0])) * torch.arange(12.0).reshape(6, 2)).sum().backward()
print(freq.weight.grad, freq(torch.tensor([3])).grad_fn._saved_scale_grad_by_freq)
w = torch.arange(12.0).reshape(4, 3).requires_grad_()
with torch.no_grad():
    w2 = w.clone()
print(F.embedding(torch.tensor([0, 3, 3]), w2, max_norm=5.0, norm_type=1.0), w2)
w3 = torch.arange(12.0).reshape(4, 3).requires_grad_()
e = F.embedding(torch.tensor([2, 2, 1]), w3, scale_grad_by_freq=True)
e.backward(torch.ones(3, 3))
print(w3.grad)
