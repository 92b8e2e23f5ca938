//! The joined board of `spec/sanguo.md` §2–§4 as a graph: kingdoms, points, lines, cells, and the
//! per-point move tables every piece uses, built once on first use ([`graph`]).

use std::fmt::{self, Write as _};
use std::str::FromStr;
use std::sync::LazyLock;

/// Number of points of the board (3 halves of 9 × 5).
pub const POINTS: usize = 135;

/// One of the three kingdoms, in turn order (`spec/sanguo.md` §2.1). Serialized as its machine
/// name (`"shu"`, `"wu"`, `"wei"`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Kingdom {
    /// Shu (red, letter `R`), index 0, moves first.
    Shu = 0,
    /// Wu (green, letter `G`), index 1.
    Wu = 1,
    /// Wei (blue, letter `B`), index 2.
    Wei = 2,
}

impl Kingdom {
    /// The three kingdoms in turn order.
    pub const ALL: [Kingdom; 3] = [Kingdom::Shu, Kingdom::Wu, Kingdom::Wei];

    /// The kingdom of index `i` (0 Shu, 1 Wu, 2 Wei); `None` for 3 and more.
    pub const fn from_index(i: usize) -> Option<Kingdom> {
        match i {
            0 => Some(Kingdom::Shu),
            1 => Some(Kingdom::Wu),
            2 => Some(Kingdom::Wei),
            _ => None,
        }
    }

    /// The index: 0 Shu, 1 Wu, 2 Wei.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kingdom that moves after this one: `(k + 1) mod 3`.
    pub const fn next(self) -> Kingdom {
        match self {
            Kingdom::Shu => Kingdom::Wu,
            Kingdom::Wu => Kingdom::Wei,
            Kingdom::Wei => Kingdom::Shu,
        }
    }

    /// The kingdom that moves before this one: `(k + 2) mod 3`.
    pub const fn prev(self) -> Kingdom {
        match self {
            Kingdom::Shu => Kingdom::Wei,
            Kingdom::Wu => Kingdom::Shu,
            Kingdom::Wei => Kingdom::Wu,
        }
    }

    /// The upper-case letter of point names and of the side fields: `R`, `G`, `B`.
    pub const fn letter(self) -> char {
        match self {
            Kingdom::Shu => 'R',
            Kingdom::Wu => 'G',
            Kingdom::Wei => 'B',
        }
    }

    /// The kingdom of an upper-case letter `R`, `G`, `B`.
    pub const fn from_letter(c: char) -> Option<Kingdom> {
        match c {
            'R' => Some(Kingdom::Shu),
            'G' => Some(Kingdom::Wu),
            'B' => Some(Kingdom::Wei),
            _ => None,
        }
    }

    /// The lower-case owner letter of the board field: `r`, `g`, `b`.
    pub const fn owner_letter(self) -> char {
        match self {
            Kingdom::Shu => 'r',
            Kingdom::Wu => 'g',
            Kingdom::Wei => 'b',
        }
    }

    /// The kingdom of a lower-case owner letter `r`, `g`, `b`.
    pub const fn from_owner_letter(c: char) -> Option<Kingdom> {
        match c {
            'r' => Some(Kingdom::Shu),
            'g' => Some(Kingdom::Wu),
            'b' => Some(Kingdom::Wei),
            _ => None,
        }
    }

    /// The machine name: `shu`, `wu`, `wei`.
    pub const fn name(self) -> &'static str {
        match self {
            Kingdom::Shu => "shu",
            Kingdom::Wu => "wu",
            Kingdom::Wei => "wei",
        }
    }

    /// The same kingdom in the shared winner vocabulary.
    pub const fn side(self) -> crate::outcome::Side {
        match self {
            Kingdom::Shu => crate::outcome::Side::Shu,
            Kingdom::Wu => crate::outcome::Side::Wu,
            Kingdom::Wei => crate::outcome::Side::Wei,
        }
    }
}

impl fmt::Display for Kingdom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A point of the joined board: half (kingdom), file `a`–`i` from that kingdom's left, rank 1–5
/// from its back rank. Dense index `45·k + 9·(rank − 1) + file` (0…134), `spec/sanguo.md` §2.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u8);

impl Point {
    /// The point in the half of `half`, `file` 0 (`a`) … 8 (`i`), `rank` 1 (back rank) … 5 (bank).
    ///
    /// # Panics
    /// When `file > 8` or `rank` is not in 1…5.
    pub const fn new(half: Kingdom, file: u8, rank: u8) -> Point {
        assert!(file < 9 && rank >= 1 && rank <= 5, "point out of range");
        Point(45 * half as u8 + 9 * (rank - 1) + file)
    }

    /// The point of dense index `i`; `None` for 135 and more.
    pub const fn from_index(i: usize) -> Option<Point> {
        if i < POINTS {
            Some(Point(i as u8))
        } else {
            None
        }
    }

    /// The dense index 0…134.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The kingdom whose half holds the point.
    pub const fn half(self) -> Kingdom {
        match Kingdom::from_index(self.0 as usize / 45) {
            Some(k) => k,
            None => Kingdom::Shu,
        }
    }

    /// The file 0 (`a`) … 8 (`i`), counted from the half owner's left.
    pub const fn file(self) -> u8 {
        self.0 % 9
    }

    /// The rank 1 (back rank) … 5 (bank).
    pub const fn rank(self) -> u8 {
        (self.0 % 45) / 9 + 1
    }

    /// The point name's three ASCII bytes: the half's letter, file letter and rank digit,
    /// e.g. `Re1`.
    pub const fn name(self) -> [u8; 3] {
        // `R`, `G` or `B`; file < 9 and rank 1…5.
        [
            self.half().letter() as u8,
            b'a' + self.file(),
            b'0' + self.rank(),
        ]
    }

    /// Appends the point's name ([`Point::name`], as `Display` writes it) to `out`.
    pub fn push_name(self, out: &mut String) {
        out.extend(self.name().map(char::from));
    }

    /// The same file and rank in the next kingdom's half: the rotation of `spec/sanguo.md` §2.4.
    pub const fn rotated(self) -> Point {
        Point((self.0 + 45) % 135)
    }

    /// Every point in index order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS as u8).map(Point)
    }

    /// Whether the point is in the palace of its half (files `d`–`f`, ranks 1–3).
    pub const fn in_palace(self) -> bool {
        let f = self.file();
        f >= 3 && f <= 5 && self.rank() <= 3
    }

    /// Whether the point is one of the advisor points `d1 f1 e2 d3 f3` of its half.
    pub const fn is_advisor_point(self) -> bool {
        self.in_palace() && (self.file() + self.rank()).is_multiple_of(2)
    }

    /// Whether the point is one of the elephant points `c1 g1 a3 e3 i3 c5 g5` of its half.
    pub const fn is_elephant_point(self) -> bool {
        let (f, r) = (self.file(), self.rank());
        f % 2 == 0 && r % 2 == 1 && (f + r - 1) % 4 == 2
    }
}

impl fmt::Display for Point {
    /// The point name, e.g. `Re1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.name()
            .into_iter()
            .try_for_each(|b| f.write_char(char::from(b)))
    }
}

/// The error of reading a point name that is not `[RGB][a-i][1-5]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsePointError(pub String);

impl fmt::Display for ParsePointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a point: {:?} (expected such as Re1)", self.0)
    }
}

impl std::error::Error for ParsePointError {}

impl FromStr for Point {
    type Err = ParsePointError;

    /// Reads a point name such as `Re1` (case-sensitive).
    ///
    /// # Errors
    /// [`ParsePointError`] for anything but `[RGB][a-i][1-5]`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParsePointError(s.to_owned());
        let b = s.as_bytes();
        if b.len() != 3 {
            return Err(err());
        }
        let k = Kingdom::from_letter(b[0] as char).ok_or_else(err)?;
        if !(b'a'..=b'i').contains(&b[1]) || !(b'1'..=b'5').contains(&b[2]) {
            return Err(err());
        }
        Ok(Point::new(k, b[1] - b'a', b[2] - b'0'))
    }
}

/// A straight line from a point through one of its neighbours (`spec/sanguo.md` §3.2), as one
/// branch: the points in order. A branching line is stored as two rays with a common prefix; the
/// second one has `shared` = the length of that prefix, so its first `shared` points (already
/// produced by the first ray) are walked but not produced again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ray {
    points: [Point; 9],
    len: u8,
    shared: u8,
}

impl Ray {
    /// The points of the ray, nearest first (1…9 of them).
    pub fn points(&self) -> &[Point] {
        &self.points[..self.len as usize]
    }

    /// How many leading points this ray shares with an earlier ray of the same origin.
    pub fn shared(&self) -> usize {
        self.shared as usize
    }
}

/// The board graph and the move tables of every point, built once ([`graph`]).
#[derive(Debug)]
pub struct Graph {
    neighbours: Vec<Vec<Point>>,
    cells: Vec<Vec<Point>>,
    rays: Vec<Vec<Ray>>,
    horse: Vec<Vec<(Point, Point)>>,
    horse_from: Vec<Vec<(Point, Point)>>,
    flag: Vec<Vec<(Point, Point, Point)>>,
    flag_from: Vec<Vec<(Point, Point, Point)>>,
    elephant: Vec<Vec<(Point, Point)>>,
    advisor: Vec<Vec<Point>>,
    general: Vec<Vec<Point>>,
    soldier: [Vec<Vec<Point>>; 3],
    soldier_from: [Vec<Vec<Point>>; 3],
}

static GRAPH: LazyLock<Graph> = LazyLock::new(Graph::build);

/// The board graph, built on first use.
pub fn graph() -> &'static Graph {
    &GRAPH
}

fn pt(k: Kingdom, f: u8, r: u8) -> Point {
    Point::new(k, f, r)
}

/// The edges of §2.2: 76 grid edges per half and 15 rungs.
fn build_edges() -> Vec<(Point, Point)> {
    let mut edges = Vec::new();
    for k in Kingdom::ALL {
        for r in 1..=5 {
            for f in 0..9 {
                if f < 8 {
                    edges.push((pt(k, f, r), pt(k, f + 1, r)));
                }
                if r < 5 {
                    edges.push((pt(k, f, r), pt(k, f, r + 1)));
                }
            }
        }
        for f in 4..9 {
            edges.push((pt(k, f, 5), pt(k.next(), 8 - f, 5)));
        }
    }
    edges
}

/// The cells of §2.3: 96 grid squares, 12 river cells (corners in cyclic order), then the triangle.
fn build_cells() -> Vec<Vec<Point>> {
    let mut cells = Vec::new();
    for k in Kingdom::ALL {
        for r in 1..5 {
            for f in 0..8 {
                cells.push(vec![
                    pt(k, f, r),
                    pt(k, f + 1, r),
                    pt(k, f + 1, r + 1),
                    pt(k, f, r + 1),
                ]);
            }
        }
    }
    for x in Kingdom::ALL {
        let y = x.next();
        for f in 4..8 {
            cells.push(vec![
                pt(x, f, 5),
                pt(x, f + 1, 5),
                pt(y, 7 - f, 5),
                pt(y, 8 - f, 5),
            ]);
        }
    }
    cells.push(vec![
        pt(Kingdom::Shu, 4, 5),
        pt(Kingdom::Wu, 4, 5),
        pt(Kingdom::Wei, 4, 5),
    ]);
    cells
}

/// `cont(prev, cur)` of §3.1: the points that continue the straight line `prev → cur`.
fn cont(prev: Point, cur: Point) -> Vec<Point> {
    let x = cur.half();
    if prev.half() != x {
        // Just crossed a rung or a triangle side: continue down cur's file.
        return vec![pt(x, cur.file(), 4)];
    }
    let (pf, pr) = (prev.file() as i8, prev.rank() as i8);
    let (cf, cr) = (cur.file() as i8, cur.rank() as i8);
    if pf == cf && pr == 4 && cr == 5 {
        let f = cur.file();
        return match f {
            5..=8 => vec![pt(x.next(), 8 - f, 5)],
            0..=3 => vec![pt(x.prev(), 8 - f, 5)],
            _ => vec![pt(x.next(), 4, 5), pt(x.prev(), 4, 5)],
        };
    }
    let (nf, nr) = (2 * cf - pf, 2 * cr - pr);
    if (0..9).contains(&nf) && (1..=5).contains(&nr) {
        vec![pt(x, nf as u8, nr as u8)]
    } else {
        Vec::new()
    }
}

impl Graph {
    fn build() -> Graph {
        let edges = build_edges();
        let mut neighbours = vec![Vec::new(); POINTS];
        for &(a, b) in &edges {
            neighbours[a.index()].push(b);
            neighbours[b.index()].push(a);
        }
        let cells = build_cells();
        let quads: Vec<&Vec<Point>> = cells.iter().filter(|c| c.len() == 4).collect();
        // Opposite corners of `l` in the quadrilateral cells containing the edge `l–n`.
        let opposite = |l: Point, n: Point| -> Vec<Point> {
            quads
                .iter()
                .filter(|c| c.contains(&l) && c.contains(&n))
                .map(|c| {
                    let i = c.iter().position(|&q| q == l).unwrap_or(0);
                    c[(i + 2) % 4]
                })
                .collect()
        };

        let mut rays = vec![Vec::new(); POINTS];
        let mut horse = vec![Vec::new(); POINTS];
        let mut flag = vec![Vec::new(); POINTS];
        for p in Point::all() {
            for &n in &neighbours[p.index()] {
                // Rays: depth-first, the first branch complete, the second marked as sharing.
                let mut stack: Vec<(Vec<Point>, usize)> = vec![(vec![n], 0)];
                while let Some((path, shared)) = stack.pop() {
                    let last = path[path.len() - 1];
                    let before = if path.len() >= 2 {
                        path[path.len() - 2]
                    } else {
                        p
                    };
                    let next = cont(before, last);
                    if next.is_empty() {
                        let mut points = [p; 9];
                        points[..path.len()].copy_from_slice(&path);
                        rays[p.index()].push(Ray {
                            points,
                            len: path.len() as u8,
                            shared: shared as u8,
                        });
                    } else {
                        // Push in reverse so the first continuation is completed first.
                        for (j, &c) in next.iter().enumerate().rev() {
                            let mut longer = path.clone();
                            longer.push(c);
                            let s = if j == 0 { shared } else { path.len() };
                            stack.push((longer, s));
                        }
                    }
                }
                // Horse: leg n, then one diagonal step outward.
                for m in cont(p, n) {
                    for t in opposite(n, m) {
                        horse[p.index()].push((n, t));
                    }
                }
                // Flag bearer: two straight steps n, s2, then one diagonal step outward.
                for s2 in cont(p, n) {
                    for m in cont(n, s2) {
                        for t in opposite(s2, m) {
                            flag[p.index()].push((n, s2, t));
                        }
                    }
                }
            }
        }

        let mut horse_from = vec![Vec::new(); POINTS];
        for p in Point::all() {
            for &(leg, t) in &horse[p.index()] {
                horse_from[t.index()].push((p, leg));
            }
        }
        let mut flag_from = vec![Vec::new(); POINTS];
        for p in Point::all() {
            for &(s1, s2, t) in &flag[p.index()] {
                flag_from[t.index()].push((p, s1, s2));
            }
        }

        let mut elephant = vec![Vec::new(); POINTS];
        let mut advisor = vec![Vec::new(); POINTS];
        let mut general = vec![Vec::new(); POINTS];
        for p in Point::all() {
            let (k, f, r) = (p.half(), p.file() as i8, p.rank() as i8);
            for (df, dr) in [(1i8, 1i8), (1, -1), (-1, 1), (-1, -1)] {
                let (tf, tr) = (f + 2 * df, r + 2 * dr);
                if (0..9).contains(&tf) && (1..=5).contains(&tr) {
                    let eye = pt(k, (f + df) as u8, (r + dr) as u8);
                    elephant[p.index()].push((eye, pt(k, tf as u8, tr as u8)));
                }
                let (af, ar) = (f + df, r + dr);
                if p.is_advisor_point() && (0..9).contains(&af) && (1..=5).contains(&ar) {
                    let t = pt(k, af as u8, ar as u8);
                    if t.is_advisor_point() {
                        advisor[p.index()].push(t);
                    }
                }
            }
            if p.in_palace() {
                for &n in &neighbours[p.index()] {
                    if n.half() == k && n.in_palace() {
                        general[p.index()].push(n);
                    }
                }
            }
        }

        let mut soldier: [Vec<Vec<Point>>; 3] = Default::default();
        let mut soldier_from: [Vec<Vec<Point>>; 3] = Default::default();
        for o in Kingdom::ALL {
            let mut table = vec![Vec::new(); POINTS];
            for p in Point::all() {
                let (k, f, r) = (p.half(), p.file(), p.rank());
                let t = &mut table[p.index()];
                if k == o {
                    if r < 5 {
                        t.push(pt(k, f, r + 1));
                    } else {
                        match f {
                            5..=8 => t.push(pt(k.next(), 8 - f, 5)),
                            0..=3 => t.push(pt(k.prev(), 8 - f, 5)),
                            _ => {
                                t.push(pt(k.next(), 4, 5));
                                t.push(pt(k.prev(), 4, 5));
                            }
                        }
                    }
                } else {
                    if r > 1 {
                        t.push(pt(k, f, r - 1));
                    }
                    if f > 0 {
                        t.push(pt(k, f - 1, r));
                    }
                    if f < 8 {
                        t.push(pt(k, f + 1, r));
                    }
                }
            }
            let mut from = vec![Vec::new(); POINTS];
            for p in Point::all() {
                for &t in &table[p.index()] {
                    from[t.index()].push(p);
                }
            }
            soldier[o.index()] = table;
            soldier_from[o.index()] = from;
        }

        Graph {
            neighbours,
            cells,
            rays,
            horse,
            horse_from,
            flag,
            flag_from,
            elephant,
            advisor,
            general,
            soldier,
            soldier_from,
        }
    }

    /// The neighbours of `p` along the lines of §2.2 (2–5 of them).
    pub fn neighbours(&self, p: Point) -> &[Point] {
        &self.neighbours[p.index()]
    }

    /// Every edge once, as `(a, b)` with `a < b` in index order.
    pub fn edges(&self) -> Vec<(Point, Point)> {
        let mut out = Vec::new();
        for a in Point::all() {
            for &b in self.neighbours(a) {
                if a < b {
                    out.push((a, b));
                }
            }
        }
        out
    }

    /// The cells of §2.3: 108 quadrilaterals (corners in cyclic order) and the triangle.
    pub fn cells(&self) -> &[Vec<Point>] {
        &self.cells
    }

    /// The rays from `p` (§3.2); a branching line appears as two rays (see [`Ray::shared`]).
    pub fn rays(&self, p: Point) -> &[Ray] {
        &self.rays[p.index()]
    }

    /// The horse moves from `p` on an empty board as `(leg, target)` pairs (a target may appear
    /// with two legs).
    pub fn horse(&self, p: Point) -> &[(Point, Point)] {
        &self.horse[p.index()]
    }

    /// The horses that reach `t`: `(horse point, leg)` pairs.
    pub fn horse_from(&self, t: Point) -> &[(Point, Point)] {
        &self.horse_from[t.index()]
    }

    /// The flag-bearer moves from `p` as `(step 1, step 2, target)` triples.
    pub fn flag(&self, p: Point) -> &[(Point, Point, Point)] {
        &self.flag[p.index()]
    }

    /// The flag bearers that reach `t`: `(flag-bearer point, step 1, step 2)` triples.
    pub fn flag_from(&self, t: Point) -> &[(Point, Point, Point)] {
        &self.flag_from[t.index()]
    }

    /// The elephant moves from `p` inside its half as `(eye, target)` pairs.
    pub fn elephant(&self, p: Point) -> &[(Point, Point)] {
        &self.elephant[p.index()]
    }

    /// The advisor steps from `p` between the advisor points of its half.
    pub fn advisor(&self, p: Point) -> &[Point] {
        &self.advisor[p.index()]
    }

    /// The general steps from `p` inside the palace of its half.
    pub fn general(&self, p: Point) -> &[Point] {
        &self.general[p.index()]
    }

    /// The steps of a soldier of origin `origin` standing on `p` (§4.2).
    pub fn soldier(&self, origin: Kingdom, p: Point) -> &[Point] {
        &self.soldier[origin.index()][p.index()]
    }

    /// The points from which a soldier of origin `origin` steps onto `t`.
    pub fn soldier_from(&self, origin: Kingdom, t: Point) -> &[Point] {
        &self.soldier_from[origin.index()][t.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kingdom_names() {
        for k in Kingdom::ALL {
            assert_eq!(
                serde_json::to_string(&k).unwrap(),
                format!("\"{}\"", k.name())
            );
            assert_eq!(k.side().as_str(), k.name());
            assert_eq!(Kingdom::from_letter(k.letter()), Some(k));
            assert_eq!(Kingdom::from_owner_letter(k.owner_letter()), Some(k));
            assert_eq!(k.next().prev(), k);
        }
    }

    #[test]
    fn point_names_round_trip() {
        for p in Point::all() {
            assert_eq!(p.to_string().parse::<Point>(), Ok(p));
        }
        assert_eq!(Point::new(Kingdom::Wu, 4, 5).to_string(), "Ge5");
        for bad in ["re1", "Rj1", "R e1", "Re6", "Re0", "Re", "Re11", ""] {
            assert!(bad.parse::<Point>().is_err(), "{bad}");
        }
    }

    #[test]
    fn palace_and_elephant_points() {
        let names = |f: fn(Point) -> bool| -> Vec<String> {
            Point::all()
                .filter(|p| p.half() == Kingdom::Shu && f(*p))
                .map(|p| p.to_string())
                .collect()
        };
        assert_eq!(
            names(Point::is_advisor_point),
            ["Rd1", "Rf1", "Re2", "Rd3", "Rf3"]
        );
        assert_eq!(
            names(Point::is_elephant_point),
            ["Rc1", "Rg1", "Ra3", "Re3", "Ri3", "Rc5", "Rg5"]
        );
    }
}
