//! SUMO's floating car data (`sumo --fcd-output FILE`): an XML file of
//! `<timestep time="t">` elements, each with one `<vehicle id="..." x="..."
//! y="..." .../>` (or `<person .../>`) per vehicle in the network at that
//! step. Node `n` is the `n`-th vehicle id in the order of first
//! appearance; its positions at its steps are the waypoints (the node
//! moves in a straight line between steps, which is what SUMO's FCD
//! samples tell). Before its first step it stands at its first position,
//! after its last at its last. With `--fcd-output.geo` x and y are
//! longitude and latitude: such a file is refused (the simulator's map is
//! in metres).

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::{bad, finite, push, time};
use crate::models::mobility::{MobilityError, Point, Trajectory};

/// Line numbers of byte positions met in increasing order, counted once
/// over the whole text.
struct Lines<'a> {
    text: &'a [u8],
    pos: usize,
    line: usize,
}

impl Lines<'_> {
    /// The 1-based line at byte `pos` (not before the last one asked).
    fn at(&mut self, pos: u64) -> usize {
        let pos = usize::try_from(pos)
            .unwrap_or(usize::MAX)
            .clamp(self.pos, self.text.len());
        self.line += self.text[self.pos..pos]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.pos = pos;
        self.line
    }
}

/// The value of attribute `name` of `e`, if present.
fn attr(e: &BytesStart<'_>, name: &str, line: usize) -> Result<Option<String>, MobilityError> {
    match e.try_get_attribute(name) {
        Ok(Some(a)) => a
            .unescape_value()
            .map(|v| Some(v.into_owned()))
            .map_err(|err| bad(line, format!("attribute {name}: {err}"))),
        Ok(None) => Ok(None),
        Err(err) => Err(bad(line, err.to_string())),
    }
}

/// Node `node` (0 = the first vehicle id to appear) of a SUMO FCD file.
pub fn sumo_fcd(
    text: &str,
    node: usize,
    max_waypoints: usize,
) -> Result<Trajectory, MobilityError> {
    let mut r = Reader::from_str(text);
    let mut ids: Vec<String> = Vec::new();
    let mut step: Option<f64> = None;
    let mut points = Vec::new();
    let mut lines = Lines {
        text: text.as_bytes(),
        pos: 0,
        line: 1,
    };
    loop {
        let n = lines.at(r.buffer_position());
        let ev = r.read_event().map_err(|e| bad(n, e.to_string()))?;
        match ev {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                b"fcd-export" => {}
                b"timestep" => {
                    let t = attr(&e, "time", n)?.ok_or_else(|| bad(n, "timestep without time"))?;
                    step = Some(finite(n, "time", &t)?);
                }
                b"vehicle" | b"person" | b"container" => {
                    let t = step.ok_or_else(|| bad(n, "vehicle outside a timestep"))?;
                    let id = attr(&e, "id", n)?.ok_or_else(|| bad(n, "vehicle without id"))?;
                    let idx = match ids.iter().position(|i| *i == id) {
                        Some(i) => i,
                        None if ids.len() <= node => {
                            ids.push(id);
                            ids.len() - 1
                        }
                        // Vehicles after ours are of no interest.
                        None => continue,
                    };
                    if idx != node {
                        continue;
                    }
                    if attr(&e, "lon", n)?.is_some() {
                        return Err(bad(
                            n,
                            "geo coordinates (lon/lat): write FCD without --fcd-output.geo",
                        ));
                    }
                    let coord = |k: &str| -> Result<f64, MobilityError> {
                        let v = attr(&e, k, n)?
                            .ok_or_else(|| bad(n, format!("vehicle without {k}")))?;
                        finite(n, k, &v)
                    };
                    let p = Point::new(coord("x")?, coord("y")?);
                    push(&mut points, n, time(n, t)?, p)?;
                    if points.len() > max_waypoints {
                        return Err(MobilityError::TooManyWaypoints {
                            limit: max_waypoints,
                        });
                    }
                }
                _ => {}
            },
            Event::End(e) if e.name().as_ref() == b"timestep" => step = None,
            _ => {}
        }
    }
    if points.is_empty() {
        return Err(bad(
            0,
            format!("no vehicle {node} ({} vehicles in the file)", ids.len()),
        ));
    }
    Trajectory::from_waypoints(points, max_waypoints)
}

#[cfg(test)]
mod tests {
    use super::*;
    use msctp_proto::Time;

    const FCD: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fcd-export>
    <timestep time="0.00">
        <vehicle id="bus" x="8.30" y="-1.60" angle="90.00" type="car" speed="0.00" pos="5.10" lane="A0B0_0" slope="0.00"/>
    </timestep>
    <timestep time="1.00">
        <vehicle id="bus" x="10.30" y="-1.60" angle="90.00" type="car" speed="2.00" pos="7.10" lane="A0B0_0" slope="0.00"/>
        <vehicle id="car1" x="1.60" y="8.30" angle="0.00" type="car" speed="0.00" pos="5.10" lane="A0A1_0" slope="0.00"/>
    </timestep>
    <timestep time="2.00">
        <vehicle id="car1" x="1.60" y="12.30" angle="0.00" type="car" speed="4.00" pos="9.10" lane="A0A1_0" slope="0.00"/>
    </timestep>
    <timestep time="3.00"/>
</fcd-export>
"#;

    #[test]
    fn vehicles_in_order_of_first_appearance_move_between_their_steps() {
        let bus = sumo_fcd(FCD, 0, 100).unwrap();
        let at = |tr: &Trajectory, s: f64| {
            let p = tr.position(Time::from_secs_f64(s));
            ((p.x * 1e6).round() / 1e6, (p.y * 1e6).round() / 1e6)
        };
        assert_eq!(at(&bus, 0.5), (9.3, -1.6));
        assert_eq!(at(&bus, 9.0), (10.3, -1.6), "stays where it left");
        let car = sumo_fcd(FCD, 1, 100).unwrap();
        assert_eq!(at(&car, 0.0), (1.6, 8.3), "waits at its first place");
        assert_eq!(at(&car, 1.5), (1.6, 10.3));
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = sumo_fcd(FCD, 2, 100).unwrap_err().to_string();
        assert!(e.contains("no vehicle 2 (2 vehicles"), "{e}");
        let bad_x = FCD.replace("x=\"10.30\"", "x=\"ten\"");
        let e = sumo_fcd(&bad_x, 0, 100).unwrap_err().to_string();
        assert!(e.contains("line 7") && e.contains("ten"), "{e}");
        let geo = FCD.replace("x=\"8.30\"", "lon=\"7.1\" x=\"8.30\"");
        assert!(
            sumo_fcd(&geo, 0, 100)
                .unwrap_err()
                .to_string()
                .contains("geo")
        );
        let e = sumo_fcd("<fcd-export><timestep time=\"0\"><vehicle", 0, 100).unwrap_err();
        assert!(matches!(e, MobilityError::BadTrace { .. }), "{e}");
        assert!(matches!(
            sumo_fcd(FCD, 0, 1).unwrap_err(),
            MobilityError::TooManyWaypoints { limit: 1 }
        ));
    }
}
