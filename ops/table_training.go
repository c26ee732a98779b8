package ops

// trainingTable holds the ops a functionalized training step needs that no
// other table has. PyTorch's functionalization (torch.func.functionalize
// under make_fx, torch 2.15) turns dropout's bernoulli_.float into
// bernoulli.p and bernoulli_.Tensor into bernoulli.Tensor.
func trainingTable() []Entry {
	return []Entry{
		{Schema: "bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor", Kind: KindRandom, Meta: selfRule(metaClone), Random: true},
		{Schema: "bernoulli.Tensor(Tensor self, Tensor p, *, Generator? generator=None) -> Tensor", Kind: KindRandom, Meta: selfRule(metaClone), Random: true},
	}
}
