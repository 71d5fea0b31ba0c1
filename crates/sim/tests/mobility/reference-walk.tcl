# The reference scenario's walk as ns-2 movement commands: from (50, 0),
# at 2 s towards (250, 0) at 10 m/s.
$node_(0) set X_ 50.0
$node_(0) set Y_ 0.0
$node_(0) set Z_ 0.0
$ns_ at 2.0 "$node_(0) setdest 250.0 0.0 10.0"
