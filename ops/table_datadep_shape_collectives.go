package ops

// Data-dependent ops, symbolic-int ops and asserts, shape-building ops,
// _foreach ops and collectives (native_functions.yaml,
// torch/csrc/distributed/c10d/Functional.cpp for _c10d_functional).

func dataDepTable() []Entry {
	d := func(schema string, meta MetaFunc) Entry {
		return Entry{Schema: schema, Kind: KindDataDependent, Meta: meta, DataDep: true}
	}
	return []Entry{
		d("_local_scalar_dense(Tensor self) -> Scalar", metaLocalScalarDense),
		d("item(Tensor self) -> Scalar", metaLocalScalarDense),
		d("nonzero(Tensor self) -> Tensor", selfRule(metaNonzero)),
		d("masked_select(Tensor self, Tensor mask) -> Tensor", selfRule(metaMaskedSelect)),
		d("_unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor)", metaUnique),
		d("_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)", metaUnique),
		d("unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)", metaUnique),
		d("unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)", metaUnique),
		d("repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor", metaRepeatInterleave),
		d("bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor", selfRule(metaBincount)),
		{Schema: "repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor", Kind: KindShape, Meta: selfRule(metaRepeatInterleaveSelfInt)},
	}
}

func symTable() []Entry {
	s := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindSym, Meta: meta} }
	fx := func(schema string, meta MetaFunc) Entry {
		return Entry{Schema: schema, Kind: KindSym, Meta: meta, Effects: true}
	}
	return []Entry{
		s("sym_size.int(Tensor self, int dim) -> SymInt", metaSymSize),
		s("sym_stride.int(Tensor self, int dim) -> SymInt", metaSymSize),
		s("sym_numel(Tensor self) -> SymInt", metaSymSize),
		s("sym_storage_offset(Tensor self) -> SymInt", metaSymSize),
		fx("_assert_scalar(Scalar self, str assert_msg) -> ()", metaAssertScalar),
		fx("_assert_async(Tensor self) -> ()", metaSideEffect),
		fx("_assert_async.msg(Tensor self, str assert_msg) -> ()", metaSideEffect),
		fx("sym_constrain_range(Scalar size, *, int? min=None, int? max=None) -> ()", metaConstrainRange),
		fx("sym_constrain_range_for_size(Scalar size, *, int? min=None, int? max=None) -> ()", metaConstrainRange),
		// Inductor's generated wrappers assert what they assume
		// (torch/_inductor codegen: assert_alignment(buf, 16, 'op')); the
		// align pass inserts this so the assumption is visible in the IR.
		fx("kiln::assert_alignment(Tensor self, int alignment, str? op_name=None) -> ()", metaSideEffect),
		fx("_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()", metaSideEffect),
	}
}

func shapeTable() []Entry {
	s := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindShape, Meta: meta} }
	r := selfEntry(KindShape)
	return []Entry{
		s("cat(Tensor[] tensors, int dim=0) -> Tensor", metaCat),
		s("stack(Tensor[] tensors, int dim=0) -> Tensor", metaStack),
		r("repeat(Tensor self, SymInt[] repeats) -> Tensor", metaRepeat),
		r("flip(Tensor self, int[] dims) -> Tensor", metaPreserve),
		r("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor", metaSameShape),
		r("tril(Tensor self, SymInt diagonal=0) -> Tensor", metaSameShape),
		r("triu(Tensor self, SymInt diagonal=0) -> Tensor", metaSameShape),
		r("tril_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)", metaSelfInplace),
		r("triu_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)", metaSelfInplace),
	}
}

// foreachTable: `_foreach_op.Scalar(Tensor[] self, Scalar scalar) ->
// Tensor[]`, `.List`, `.Tensor`, and the in-place forms returning ().
func foreachTable() []Entry {
	var t []Entry
	f := func(schema string, kind PromotionKind, names ...string) {
		t = append(t, Entry{Schema: schema, Kind: KindPointwise, Meta: foreach(kind, names...)})
	}
	for _, op := range []string{"add", "sub"} {
		f("_foreach_"+op+".Scalar(Tensor[] self, Scalar scalar) -> Tensor[]", PromoteDefault, "self", "scalar")
		f("_foreach_"+op+".List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]", PromoteDefault, "self", "other")
		f("_foreach_"+op+"_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()", PromoteDefault, "self", "scalar")
		f("_foreach_"+op+"_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()", PromoteDefault, "self", "other")
	}
	f("_foreach_add.Tensor(Tensor[] self, Tensor other, *, Scalar alpha=1) -> Tensor[]", PromoteDefault, "self", "other")
	for _, op := range []string{"mul", "div", "maximum", "minimum"} {
		kind := PromoteDefault
		if op == "div" {
			kind = PromoteIntToFloat
		}
		f("_foreach_"+op+".Scalar(Tensor[] self, Scalar scalar) -> Tensor[]", kind, "self", "scalar")
		f("_foreach_"+op+".List(Tensor[] self, Tensor[] other) -> Tensor[]", kind, "self", "other")
		f("_foreach_"+op+"_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()", kind, "self", "scalar")
		f("_foreach_"+op+"_.List(Tensor(a!)[] self, Tensor[] other) -> ()", kind, "self", "other")
	}
	f("_foreach_mul.Tensor(Tensor[] self, Tensor other) -> Tensor[]", PromoteDefault, "self", "other")
	f("_foreach_div.Tensor(Tensor[] self, Tensor other) -> Tensor[]", PromoteIntToFloat, "self", "other")
	for _, op := range []string{"addcmul", "addcdiv"} {
		f("_foreach_"+op+".Scalar(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar value=1) -> Tensor[]", PromoteDefault, "self", "tensor1", "tensor2")
		f("_foreach_"+op+"_.Scalar(Tensor(a!)[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar value=1) -> ()", PromoteDefault, "self", "tensor1", "tensor2")
	}
	f("_foreach_pow.ScalarAndTensor(Scalar self, Tensor[] exponent) -> Tensor[]", PromoteBoolToLong, "self", "exponent")
	f("_foreach_pow.Scalar(Tensor[] self, Scalar exponent) -> Tensor[]", PromoteBoolToLong, "self", "exponent")
	f("_foreach_pow.List(Tensor[] self, Tensor[] exponent) -> Tensor[]", PromoteBoolToLong, "self", "exponent")
	for _, op := range []string{"neg", "abs", "exp", "log", "sqrt", "reciprocal", "sigmoid", "tanh", "sign", "zero"} {
		kind := PromoteIntToFloat
		if op == "neg" || op == "abs" || op == "sign" || op == "zero" {
			kind = PromoteDefault
		}
		if op != "zero" {
			f("_foreach_"+op+"(Tensor[] self) -> Tensor[]", kind, "self")
		}
		f("_foreach_"+op+"_(Tensor(a!)[] self) -> ()", kind, "self")
	}
	f("_foreach_copy_(Tensor(a!)[] self, Tensor[] src, bool non_blocking=False) -> ()", PromoteDefault, "self", "src")
	return t
}

func collectiveTable() []Entry {
	c := func(schema string, rule selfRuleFunc) Entry {
		return Entry{Schema: schema, Kind: KindCollective, Meta: selfRule(rule), Effects: true}
	}
	return []Entry{
		c("_c10d_functional::all_reduce(Tensor input, Any reduce_op, Any group_name) -> Tensor", metaCollectiveSame),
		c("_c10d_functional::all_to_all_single(Tensor input, SymInt[] output_split_sizes, SymInt[] input_split_sizes, Any group_name) -> Tensor", metaAllToAllSingle),
		c("_c10d_functional::all_gather_into_tensor(Tensor input, int group_size, Any group_name) -> Tensor", metaAllGather),
		c("_c10d_functional::reduce_scatter_tensor(Tensor input, str reduce_op, int group_size, Any group_name) -> Tensor", metaReduceScatter),
		c("_c10d_functional::broadcast(Tensor input, int src, Any group_name) -> Tensor", metaCollectiveSame),
		c("_c10d_functional::wait_tensor(Tensor tensor) -> Tensor", ruleAlias),
	}
}
