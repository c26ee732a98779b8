package ops

// builtinTables concatenates every family's table into the rows the default
// registry is built from.
func builtinTables() []Entry {
	var all []Entry
	for _, t := range [][]Entry{
		pointwiseTable(), viewTable(), castTable(), reduceTable(), factoryTable(), matmulTable(),
		nnTable(), backwardTable(), miscTable11(), attentionCPUTable(), inductorPrimsTable(), indexTable(), dataDepTable(), symTable(), shapeTable(), foreachTable(), collectiveTable(),
		conformanceTable(), conformanceTable2(), conformanceTable3(), linalgTable(), fftTable(), dynamoTable(), linalgMoreTable(), linalgCompositeTable(),
		pointwiseTableC11(), c11opsTable(), pool1dTable(), specialAliasTable(), trainingTable(),
	} {
		all = append(all, t...)
	}
	return all
}
