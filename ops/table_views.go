package ops

// View ops and their *_copy forms, casts and copies. Schemas from
// native_functions.yaml; view inverses from functionalization
// (FunctionalInverses.cpp): slice -> slice_scatter, select ->
// select_scatter, diagonal -> diagonal_scatter, as_strided ->
// as_strided_scatter; reshape-like views are inverted by a view back to the
// base shape and have no scatter op.

func viewTable() []Entry {
	v := func(schema string, rule selfRuleFunc, inverse string) Entry {
		return Entry{Schema: schema, Kind: KindView, Meta: selfRule(rule), ViewInverse: inverse}
	}
	rowMajor := func(schema string, rule selfRuleFunc) Entry {
		e := v(schema, rule, "")
		e.RowMajor = true
		return e
	}
	cp := func(schema string, rule selfRuleFunc) Entry {
		return Entry{Schema: schema, Kind: KindView, Meta: copied(selfRule(rule)), Doc: "functional copy of a view"}
	}
	return []Entry{
		rowMajor("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", ruleView),
		v("view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)", ruleViewDType, ""),
		rowMajor("_unsafe_view(Tensor self, SymInt[] size) -> Tensor", ruleView),
		rowMajor("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", ruleReshape),
		v("_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)", ruleAsStrided, ""),
		rowMajor("view_as(Tensor(a) self, Tensor other) -> Tensor(a)", ruleViewAs),
		v("slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)", ruleSlice, "aten::slice_scatter.default"),
		v("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", ruleSelect, "aten::select_scatter.default"),
		v("narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)", ruleNarrow, "aten::slice_scatter.default"),
		v("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", ruleTranspose, ""),
		v("t(Tensor(a) self) -> Tensor(a)", ruleT, ""),
		v("permute(Tensor(a) self, int[] dims) -> Tensor(a)", rulePermute, ""),
		v("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", ruleExpand, ""),
		v("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", ruleUnsqueeze, ""),
		v("squeeze(Tensor(a) self) -> Tensor(a)", ruleSqueeze, ""),
		v("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", ruleSqueeze, ""),
		v("squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)", ruleSqueeze, ""),
		v("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)", ruleAsStrided, "aten::as_strided_scatter.default"),
		v("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)", ruleDiagonal, "aten::diagonal_scatter.default"),
		v("alias(Tensor(a) self) -> Tensor(a)", ruleAlias, ""),
		v("detach(Tensor(a) self) -> Tensor(a)", ruleAlias, ""),
		v("lift_fresh(Tensor(a) self) -> Tensor(a)", ruleAlias, ""),
		v("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)", ruleUnfold, ""),
		{Schema: "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", Kind: KindView, Meta: metaSplit},
		{Schema: "split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]", Kind: KindView, Meta: metaSplitWithSizes},
		{Schema: "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", Kind: KindView, Meta: metaChunk},
		{Schema: "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", Kind: KindView, Meta: metaUnbind},
		{Schema: "split_copy.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]", Kind: KindView, Meta: copied(metaSplit)},
		{Schema: "split_with_sizes_copy(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]", Kind: KindView, Meta: copied(metaSplitWithSizes)},
		{Schema: "unbind_copy.int(Tensor self, int dim=0) -> Tensor[]", Kind: KindView, Meta: copied(metaUnbind)},
		cp("view_copy(Tensor self, SymInt[] size) -> Tensor", ruleView),
		cp("view_copy.dtype(Tensor self, ScalarType dtype) -> Tensor", ruleViewDType),
		cp("slice_copy.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor", ruleSlice),
		cp("select_copy.int(Tensor self, int dim, SymInt index) -> Tensor", ruleSelect),
		cp("transpose_copy.int(Tensor self, int dim0, int dim1) -> Tensor", ruleTranspose),
		cp("t_copy(Tensor self) -> Tensor", ruleT),
		cp("permute_copy(Tensor self, int[] dims) -> Tensor", rulePermute),
		cp("expand_copy(Tensor self, SymInt[] size, *, bool implicit=False) -> Tensor", ruleExpand),
		cp("unsqueeze_copy(Tensor self, int dim) -> Tensor", ruleUnsqueeze),
		cp("squeeze_copy(Tensor self) -> Tensor", ruleSqueeze),
		cp("squeeze_copy.dim(Tensor self, int dim) -> Tensor", ruleSqueeze),
		cp("squeeze_copy.dims(Tensor self, int[] dim) -> Tensor", ruleSqueeze),
		cp("as_strided_copy(Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor", ruleAsStrided),
		cp("diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor", ruleDiagonal),
		cp("alias_copy(Tensor self) -> Tensor", ruleAlias),
		cp("detach_copy(Tensor self) -> Tensor", ruleAlias),
		cp("lift_fresh_copy(Tensor self) -> Tensor", ruleAlias),
		cp("unfold_copy(Tensor self, int dimension, int size, int step) -> Tensor", ruleUnfold),
		// In-place metadata mutations (tags: inplace_view).
		v("transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)", ruleTranspose, ""),
		v("t_(Tensor(a!) self) -> Tensor(a!)", ruleT, ""),
		v("unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)", ruleUnsqueeze, ""),
		v("squeeze_(Tensor(a!) self) -> Tensor(a!)", ruleSqueeze, ""),
		v("squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)", ruleSqueeze, ""),
		v("squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)", ruleSqueeze, ""),
		v("as_strided_(Tensor(a!) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a!)", ruleAsStrided, ""),
		v("detach_(Tensor(a!) self) -> Tensor(a!)", ruleAlias, ""),
	}
}

func castTable() []Entry {
	c := selfEntry(KindCast)
	return []Entry{
		c("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor", metaToCopy),
		c("to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", metaTo),
		c("to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", metaTo),
		c("to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", metaTo),
		c("to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", metaTo),
		c("prims::convert_element_type(Tensor a, ScalarType dtype) -> Tensor", metaConvertElementType),
		c("prims::device_put(Tensor a, Device device, bool non_blocking=False) -> Tensor", metaDevicePut),
		c("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", metaClone),
		c("contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)", metaContiguous),
		c("copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor", metaCopyFunctional),
		c("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", metaCopyInplace),
		c("fill.Scalar(Tensor self, Scalar value) -> Tensor", metaFillLike),
		c("fill.Tensor(Tensor self, Tensor value) -> Tensor", metaFillLike),
		c("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", metaSelfInplace),
		c("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)", metaSelfInplace),
		c("zero(Tensor self) -> Tensor", metaFillLike),
		c("zero_(Tensor(a!) self) -> Tensor(a!)", metaSelfInplace),
		c("resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)", metaResize),
		c("resize(Tensor self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor", metaResizeFunctional),
	}
}
