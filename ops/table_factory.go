package ops

// Factories (native_functions.yaml; prims for iota and the inductor RNG ops).

const tensorOpts = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"

func factoryTable() []Entry {
	f := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindFactory, Meta: meta} }
	like := func(name, extra string) Entry {
		return f(name+"(Tensor self, "+extra+"*, "+tensorOpts+", MemoryFormat? memory_format=None) -> Tensor", selfRule(likeFactory))
	}
	newf := func(name, extra, fill string) Entry {
		return f(name+"(Tensor self, SymInt[] size, "+extra+"*, "+tensorOpts+") -> Tensor", newFactory(fill))
	}
	return []Entry{
		f("empty.memory_format(SymInt[] size, *, "+tensorOpts+", MemoryFormat? memory_format=None) -> Tensor", factory("size", "")),
		f("empty_strided(SymInt[] size, SymInt[] stride, *, "+tensorOpts+") -> Tensor", factory("size", "")),
		f("zeros(SymInt[] size, *, "+tensorOpts+") -> Tensor", factory("size", "")),
		f("ones(SymInt[] size, *, "+tensorOpts+") -> Tensor", factory("size", "")),
		f("full(SymInt[] size, Scalar fill_value, *, "+tensorOpts+") -> Tensor", factory("size", "fill_value")),
		f("scalar_tensor(Scalar s, *, "+tensorOpts+") -> Tensor", metaScalarTensor),
		f("arange(Scalar end, *, "+tensorOpts+") -> Tensor", metaArange),
		f("arange.start(Scalar start, Scalar end, *, "+tensorOpts+") -> Tensor", metaArange),
		f("arange.start_step(Scalar start, Scalar end, Scalar step=1, *, "+tensorOpts+") -> Tensor", metaArange),
		f("prims::iota(SymInt length, *, SymInt start, SymInt step, ScalarType dtype, Device device, bool requires_grad) -> Tensor", metaIota),
		like("empty_like", ""),
		like("zeros_like", ""),
		like("ones_like", ""),
		like("full_like", "Scalar fill_value, "),
		newf("new_empty", "", ""),
		newf("new_zeros", "", ""),
		newf("new_ones", "", ""),
		newf("new_full", "Scalar fill_value, ", "fill_value"),
		f("new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, "+tensorOpts+") -> Tensor", newFactory("")),
		{Schema: "rand(SymInt[] size, *, " + tensorOpts + ") -> Tensor", Kind: KindRandom, Meta: factory("size", ""), Random: true},
		{Schema: "randperm(SymInt n, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", Kind: KindRandom, Meta: metaRandperm, Random: true},
		{Schema: "randn(SymInt[] size, *, " + tensorOpts + ") -> Tensor", Kind: KindRandom, Meta: factory("size", ""), Random: true},
		{Schema: "rand_like(Tensor self, *, " + tensorOpts + ", MemoryFormat? memory_format=None) -> Tensor", Kind: KindRandom, Meta: selfRule(likeFactory), Random: true},
		{Schema: "randn_like(Tensor self, *, " + tensorOpts + ", MemoryFormat? memory_format=None) -> Tensor", Kind: KindRandom, Meta: selfRule(likeFactory), Random: true},
		{Schema: "bernoulli(Tensor self, *, Generator? generator=None) -> Tensor", Kind: KindRandom, Meta: selfRule(metaClone), Random: true},
		{Schema: "prims::inductor_seeds(int count, Device device) -> Tensor", Kind: KindRandom, Meta: metaInductorSeeds, Random: true},
		{Schema: "prims::inductor_lookup_seed(Tensor seeds, int index) -> Tensor", Kind: KindRandom, Meta: metaInductorLookupSeed},
		{Schema: "prims::inductor_random(SymInt[] size, Tensor seed, str mode, *, ScalarType? align_dtype=None) -> Tensor", Kind: KindRandom, Meta: metaInductorRandom, Random: true},
	}
}
