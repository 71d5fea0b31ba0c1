//! Mobility traces made by other tools, as [`Trajectory`]s:
//!
//! - **BonnMotion's native format** (the `.movements` file its generators
//!   write, gunzipped): one line per node, the node's waypoints as
//!   `time x y` (2-D) or `time x y z` (3-D; z is dropped) one after the
//!   other on the line; the node moves in a straight line at constant
//!   speed from one waypoint to the next.
//! - **ns-2 movement files** (`setdest`, the CMU scenario generator, and
//!   hand-written Tcl of the same form): `$node_(i) set X_ x` / `Y_` /
//!   `Z_` give the initial position, `$ns_ at t "$node_(i) setdest x y v"`
//!   starts, at time t, a straight move from wherever the node is towards
//!   (x, y) at v m/s, which ends there or is cut short by the node's next
//!   `setdest` (ns-2's MobileNode::set_destination); v = 0 stops it. Other
//!   lines (`$god_ ...`, comments) are ignored.
//! - **SUMO's floating car data** (`sumo --fcd-output`): [`sumo_fcd`].
//!
//! Errors name the line. Every point, time and speed must be finite;
//! times must not decrease within a node's waypoints.

use msctp_proto::Time;

mod sumo;
pub use sumo::sumo_fcd;

use super::{MobilityError, Point, Trajectory};

/// A trace file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    BonnMotion,
    Ns2,
}

fn bad(line: usize, reason: impl Into<String>) -> MobilityError {
    MobilityError::BadTrace {
        line,
        reason: reason.into(),
    }
}

fn finite(line: usize, what: &str, s: &str) -> Result<f64, MobilityError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(bad(line, format!("{what} is not a finite number: {s:?}"))),
    }
}

fn time(line: usize, t: f64) -> Result<Time, MobilityError> {
    if !(0.0..=1e7).contains(&t) {
        return Err(bad(line, format!("time {t} s outside [0, 1e7]")));
    }
    Ok(Time::from_secs_f64(t))
}

/// Adds a waypoint, merging one at the same time as the last (a zero-length
/// step, e.g. a move that ends at the instant the next one starts).
fn push(
    points: &mut Vec<(Time, Point)>,
    line: usize,
    t: Time,
    p: Point,
) -> Result<(), MobilityError> {
    match points.last() {
        Some(&(lt, _)) if t < lt => Err(bad(line, format!("time {t} before {lt}"))),
        Some(&(lt, _)) if t == lt => {
            points.last_mut().expect("not empty").1 = p;
            Ok(())
        }
        _ => {
            points.push((t, p));
            Ok(())
        }
    }
}

/// Node `node` (0 = the first line) of a BonnMotion `.movements` file with
/// `dims` (2 or 3) coordinates per waypoint.
pub fn bonnmotion(
    text: &str,
    node: usize,
    dims: usize,
    max_waypoints: usize,
) -> Result<Trajectory, MobilityError> {
    if !(2..=3).contains(&dims) {
        return Err(bad(0, format!("{dims} dimensions (2 or 3)")));
    }
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((i, line)) = lines.nth(node) else {
        return Err(bad(0, format!("no node {node} (one node per line)")));
    };
    let n = i + 1;
    let fields: Vec<&str> = line.split_whitespace().collect();
    let per = dims + 1;
    if fields.is_empty() || !fields.len().is_multiple_of(per) {
        return Err(bad(
            n,
            format!("{} numbers are not waypoints of {per}", fields.len()),
        ));
    }
    if fields.len() / per > max_waypoints {
        return Err(MobilityError::TooManyWaypoints {
            limit: max_waypoints,
        });
    }
    let mut points = Vec::with_capacity(fields.len() / per);
    for w in fields.chunks(per) {
        let t = time(n, finite(n, "time", w[0])?)?;
        let p = Point::new(finite(n, "x", w[1])?, finite(n, "y", w[2])?);
        push(&mut points, n, t, p)?;
    }
    Trajectory::from_waypoints(points, max_waypoints)
}

/// One `setdest` of the node: (time, target, speed, line).
type SetDest = (f64, Point, f64, usize);

/// Reads `$node_(node) set X_|Y_ v` and `$ns_ at t "$node_(node) setdest x
/// y v"` lines.
fn ns2_commands(text: &str, node: usize) -> Result<(Point, Vec<SetDest>), MobilityError> {
    let me = format!("$node_({node})");
    let (mut x, mut y) = (None, None);
    let mut moves = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let l = raw.trim();
        if l.starts_with('#') || !l.contains(&me) {
            continue;
        }
        let words: Vec<&str> = l
            .split(|c: char| c.is_whitespace() || c == '"')
            .filter(|w| !w.is_empty())
            .collect();
        match words.as_slice() {
            [who, "set", axis, v] if *who == me => match *axis {
                "X_" => x = Some(finite(n, "X_", v)?),
                "Y_" => y = Some(finite(n, "Y_", v)?),
                "Z_" => {}
                other => return Err(bad(n, format!("unknown coordinate {other}"))),
            },
            ["$ns_", "at", t, who, "setdest", tx, ty, v] if *who == me => {
                let v = finite(n, "speed", v)?;
                if v < 0.0 {
                    return Err(bad(n, format!("negative speed {v}")));
                }
                let p = Point::new(finite(n, "x", tx)?, finite(n, "y", ty)?);
                moves.push((finite(n, "time", t)?, p, v, n));
            }
            _ => return Err(bad(n, format!("not an ns-2 movement line: {l:?}"))),
        }
    }
    let (Some(x), Some(y)) = (x, y) else {
        return Err(bad(0, format!("no initial X_ and Y_ for {me}")));
    };
    // ns-2 runs the scheduled commands in time order (stable for ties).
    moves.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok((Point::new(x, y), moves))
}

/// Node `node` of an ns-2 movement file, until `end` (a move still under
/// way then is cut at its position at `end`).
pub fn ns2(
    text: &str,
    node: usize,
    end: Time,
    max_waypoints: usize,
) -> Result<Trajectory, MobilityError> {
    let (start, moves) = ns2_commands(text, node)?;
    let mut points = vec![(Time::ZERO, start)];
    // The move under way: from (t0, p0) to (t1, p1).
    let mut leg: Option<((Time, Point), (Time, Point))> = None;
    let at = |leg: &((Time, Point), (Time, Point)), t: Time| -> Point {
        let ((t0, p0), (t1, p1)) = *leg;
        if t >= t1 || t1 == t0 {
            return p1;
        }
        let f = (t - t0).as_secs_f64() / (t1 - t0).as_secs_f64();
        Point::new(p0.x + f * (p1.x - p0.x), p0.y + f * (p1.y - p0.y))
    };
    for (ts, target, v, n) in moves {
        let t = time(n, ts)?;
        if t > end {
            break;
        }
        let here = match &leg {
            Some(l) => {
                let p = at(l, t);
                if l.1.0 <= t {
                    // Arrived before this command: stands there since.
                    push(&mut points, n, l.1.0, l.1.1)?;
                }
                p
            }
            None => points.last().expect("start").1,
        };
        push(&mut points, n, t, here)?;
        let d = ((target.x - here.x).powi(2) + (target.y - here.y).powi(2)).sqrt();
        leg = if v > 0.0 && d > 0.0 {
            let arrive = ts + d / v;
            Some(((t, here), (time(n, arrive.min(1e7))?, target)))
        } else {
            None
        };
        if points.len() > max_waypoints {
            return Err(MobilityError::TooManyWaypoints {
                limit: max_waypoints,
            });
        }
    }
    if let Some(l) = leg {
        let t = l.1.0.min(end);
        push(&mut points, 0, t, at(&l, t))?;
    }
    Trajectory::from_waypoints(points, max_waypoints)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: usize = 1000;

    fn close(a: Point, x: f64, y: f64) -> bool {
        (a.x - x).abs() < 1e-6 && (a.y - y).abs() < 1e-6
    }

    #[test]
    fn bonnmotion_lines_are_nodes_of_timed_waypoints() {
        let text = "0.0 10.0 20.0 5.0 60.0 20.0 8.0 60.0 20.0\n0.0 1.0 1.0 4.0 1.0 5.0\n";
        let t = bonnmotion(text, 0, 2, MAX).unwrap();
        assert_eq!(t.waypoints().len(), 3);
        assert!(close(t.position(Time::from_secs_f64(2.5)), 35.0, 20.0));
        assert!(close(t.position(Time::from_secs(7)), 60.0, 20.0), "paused");
        let t = bonnmotion(text, 1, 2, MAX).unwrap();
        assert!(close(t.position(Time::from_secs(2)), 1.0, 3.0));
        // 3-D: z dropped.
        let t = bonnmotion("0 1 2 3 10 11 12 13\n", 0, 3, MAX).unwrap();
        assert!(close(t.position(Time::from_secs(10)), 11.0, 12.0));
    }

    #[test]
    fn bonnmotion_errors_name_the_line() {
        let e = |text: &str, node| bonnmotion(text, node, 2, MAX).unwrap_err().to_string();
        assert!(
            e("0 1 2\n0 1\n", 1).contains("line 2"),
            "{}",
            e("0 1 2\n0 1\n", 1)
        );
        assert!(e("0 1 2\n", 3).contains("no node 3"));
        assert!(e("0 1 NaN\n", 0).contains("finite"));
        assert!(e("5 1 2 4 1 2\n", 0).contains("before"));
        assert!(matches!(
            bonnmotion("0 1 2 1 1 2 2 1 2\n", 0, 2, 2),
            Err(MobilityError::TooManyWaypoints { limit: 2 })
        ));
    }

    #[test]
    fn ns2_setdest_moves_are_cut_short_by_the_next_command() {
        let text = r#"
# a header comment
$node_(0) set X_ 0.0
$node_(0) set Y_ 0.0
$node_(0) set Z_ 0.0
$node_(1) set X_ 5.0
$node_(1) set Y_ 5.0
$god_ set-dist 0 1 1
$ns_ at 1.0 "$node_(0) setdest 100.0 0.0 10.0"
$ns_ at 6.0 "$node_(0) setdest 50.0 50.0 5.0"
$ns_ at 30.0 "$node_(0) setdest 50.0 50.0 0.0"
$ns_ at 2.0 "$node_(1) setdest 5.0 5.0 0.0"
"#;
        let t = ns2(text, 0, Time::from_secs(100), MAX).unwrap();
        let pos = |s: f64| t.position(Time::from_secs_f64(s));
        assert!(close(pos(0.5), 0.0, 0.0), "stands until its first move");
        assert!(close(pos(3.0), 20.0, 0.0));
        // At 6 s it is at (50, 0), then goes to (50, 50) at 5 m/s: 10 s.
        assert!(close(pos(6.0), 50.0, 0.0));
        assert!(close(pos(11.0), 50.0, 25.0));
        assert!(close(pos(16.0), 50.0, 50.0));
        assert!(close(pos(90.0), 50.0, 50.0));
        let t1 = ns2(text, 1, Time::from_secs(100), MAX).unwrap();
        assert!(close(t1.position(Time::from_secs(50)), 5.0, 5.0));
        // A move still under way at the end is cut there.
        let t = ns2(text, 0, Time::from_secs(3), MAX).unwrap();
        assert!(close(t.position(Time::from_secs(50)), 20.0, 0.0));
    }

    #[test]
    fn ns2_errors_name_the_line() {
        let e = |text: &str| {
            ns2(text, 0, Time::from_secs(10), MAX)
                .unwrap_err()
                .to_string()
        };
        assert!(e("$node_(0) set X_ 1\n").contains("no initial"));
        let t = "$node_(0) set X_ 1\n$node_(0) set Y_ 1\n$ns_ at 1 \"$node_(0) setdest 1 1 -3\"\n";
        assert!(
            e(t).contains("line 3") && e(t).contains("negative"),
            "{}",
            e(t)
        );
        assert!(e("$node_(0) frobnicate\n").contains("line 1"));
        assert!(e("$node_(0) set X_ inf\n").contains("finite"));
    }
}
