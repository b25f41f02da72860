# GTKWave script for docs/img/vcd_act_vs_matmul_collide.png (docs/visualisation.md):
#   sbufsim run traces/act_vs_matmul_collide.trc --set width.engine_bytes=8 --set width.stream_chunks=1 \
#       --vcd collide.vcd   (one 8-byte word per beat: the two engines meet; traces/README.md)
#   gtkwave -S scripts/gtkwave_collide.tcl collide.vcd
set sigs [list top.clk top.tpb.tdm.slot top.tpb.tdm.dma_precedence top.tpb.arr_seq.busy top.act.busy top.arbiter.pe_client_0_grant top.arbiter.pe_client_0_stall top.arbiter.act_rd_grant top.arbiter.act_wr_grant top.arbiter.act_wr_stall top.tpb.sbuf_cluster_0_0.busy top.tpb.sbuf_cluster_0_0.conflict top.tpb.sbuf_cluster_0_0.winner top.tpb.sbuf_cluster_0_0.grants]
gtkwave::addSignalsFromList $sigs
gtkwave::setWindowStartTime 44000
gtkwave::setZoomRangeTimes 44000 58000
