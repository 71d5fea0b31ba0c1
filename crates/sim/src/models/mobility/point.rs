//! A position on the flat ground plane, in metres.

/// A point (or vector) in the plane, in metres.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub const ORIGIN: Point = Point { x: 0.0, y: 0.0 };

    pub const fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// Euclidean distance to `other` (m).
    pub fn distance_to(self, other: Point) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }

    /// The point a fraction `f` of the way from `self` to `to`
    /// (`f` = 0 gives `self`, 1 gives `to`).
    pub fn lerp(self, to: Point, f: f64) -> Point {
        Point {
            x: self.x + (to.x - self.x) * f,
            y: self.y + (to.y - self.y) * f,
        }
    }

    /// Both coordinates are finite numbers.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_and_interpolation() {
        let a = Point::new(0.0, 0.0);
        let b = Point::new(3.0, 4.0);
        assert_eq!(a.distance_to(b), 5.0);
        assert_eq!(a.lerp(b, 0.5), Point::new(1.5, 2.0));
        assert_eq!(a.lerp(b, 1.0), b);
        assert!(!Point::new(f64::NAN, 0.0).is_finite());
    }
}
