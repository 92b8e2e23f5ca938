//! The pairing of one Swiss round: a documented subset of FIDE's Dutch system (FIDE Handbook
//! C.04.3; `docs/swiss.md` lists what is and is not implemented).
//!
//! Input: the players to pair, in rank order (score, then pairing number). Output: the pairs
//! (Red first) in board order and the bye. The absolute criteria (no rematch, no two players
//! with the same absolute colour preference, at most one bye) are never broken; when no pairing
//! meets them, the colour criterion is dropped ("relaxed"), and when none meets the rest either,
//! there is no pairing (the event ends, as on lichess).

use super::matching::max_matching;
use crate::Side;

/// What the pairing needs to know of one player.
#[derive(Debug, Clone)]
pub(crate) struct Entrant {
    /// Points in half-points.
    pub half_points: u32,
    /// Pairing number: 1 for the highest rated (FIDE's TPN); its parity chooses colours when
    /// nothing else does.
    pub number: u32,
    /// Colours of the games played, oldest first.
    pub colours: Vec<Side>,
    /// Byes received.
    pub byes: u32,
}

/// A round's pairing, in the indices of the entrants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pairing {
    /// (Red, Black), in board order.
    pub pairs: Vec<(usize, usize)>,
    /// Who has the bye.
    pub bye: Option<usize>,
    /// Whether the colour criterion had to be dropped.
    pub relaxed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Strength {
    None,
    Mild,
    Strong,
    Absolute,
}

/// A colour preference (C.04.3 A.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Preference {
    pub colour: Option<Side>,
    pub strength: Strength,
    /// Red games minus Black games.
    pub difference: i32,
}

fn other(side: Side) -> Side {
    if side == Side::Red {
        Side::Black
    } else {
        Side::Red
    }
}

/// The colour preference of a player who played `colours` (oldest first): absolute when the
/// colour difference is beyond ±1 or the last two games had the same colour, strong at ±1, mild
/// at 0 (alternate from the last game), none before the first game.
pub(crate) fn preference(colours: &[Side]) -> Preference {
    let reds = colours.iter().filter(|&&c| c == Side::Red).count() as i32;
    let difference = 2 * reds - colours.len() as i32;
    let last = colours.last().copied();
    let last_two_same =
        colours.len() >= 2 && colours[colours.len() - 2] == colours[colours.len() - 1];
    let (colour, strength) = if difference > 1 {
        (Some(Side::Black), Strength::Absolute)
    } else if difference < -1 {
        (Some(Side::Red), Strength::Absolute)
    } else if last_two_same {
        (last.map(other), Strength::Absolute)
    } else if difference == 1 {
        (Some(Side::Black), Strength::Strong)
    } else if difference == -1 {
        (Some(Side::Red), Strength::Strong)
    } else if let Some(l) = last {
        (Some(other(l)), Strength::Mild)
    } else {
        (None, Strength::None)
    };
    Preference {
        colour,
        strength,
        difference,
    }
}

/// Whether `x` (the better ranked of the pair) gets Red against `y` (C.04.3 E.1-E.5).
pub(crate) fn x_gets_red(x: &Entrant, y: &Entrant) -> bool {
    let (px, py) = (preference(&x.colours), preference(&y.colours));
    let wants_red = |p: Preference| p.colour == Some(Side::Red);
    match (px.colour, py.colour) {
        // E.5: no preferences: the better ranked takes Red on an odd pairing number.
        (None, None) => return x.number % 2 == 1,
        (Some(_), None) => return wants_red(px),
        (None, Some(_)) => return !wants_red(py),
        // E.1: both preferences granted.
        (Some(a), Some(b)) if a != b => return wants_red(px),
        _ => {}
    }
    // E.2: the stronger preference (between two absolute ones, the wider difference).
    if px.strength != py.strength {
        return if px.strength > py.strength {
            wants_red(px)
        } else {
            !wants_red(py)
        };
    }
    if px.strength == Strength::Absolute && px.difference.abs() != py.difference.abs() {
        return if px.difference.abs() > py.difference.abs() {
            wants_red(px)
        } else {
            !wants_red(py)
        };
    }
    // E.3: alternate to the latest game in which they had different colours.
    for (cx, cy) in x.colours.iter().rev().zip(y.colours.iter().rev()) {
        if cx != cy {
            return *cx == Side::Black;
        }
    }
    // E.4: the better ranked player's preference.
    wants_red(px)
}

/// Search budget per bracket, number of pairs and colour pass: search steps before giving up on
/// that pass (a rare case on big brackets; the next pass, or fewer pairs, is then tried).
const BUDGET: u32 = 20_000;

struct Ctx<'a> {
    entrants: &'a [Entrant],
    prefs: Vec<Preference>,
    /// `met[a][b]`: a and b played each other.
    met: &'a [Vec<bool>],
    relaxed: bool,
}

impl Ctx<'_> {
    /// The absolute criteria: no rematch; unless relaxed, no two equal absolute preferences.
    fn allowed(&self, a: usize, b: usize) -> bool {
        if a == b || self.met[a][b] {
            return false;
        }
        let (pa, pb) = (self.prefs[a], self.prefs[b]);
        self.relaxed
            || !(pa.strength == Strength::Absolute
                && pb.strength == Strength::Absolute
                && pa.colour == pb.colour)
    }

    /// The colour quality criterion of a pass: no pair in which both players have a preference
    /// of at least `floor` for the same colour (`Strength::None`: any pair fits).
    fn fits(&self, a: usize, b: usize, floor: Strength) -> bool {
        let (pa, pb) = (self.prefs[a], self.prefs[b]);
        floor == Strength::None
            || !(pa.strength >= floor && pb.strength >= floor && pa.colour == pb.colour)
    }

    /// Whether the players of `set` can all be paired under the absolute criteria.
    fn completable(&self, set: &[usize]) -> bool {
        if set.len() % 2 == 1 {
            return false;
        }
        let adj: Vec<Vec<usize>> = set
            .iter()
            .map(|&a| {
                (0..set.len())
                    .filter(|&j| self.allowed(a, set[j]))
                    .collect()
            })
            .collect();
        let mate = max_matching(&adj);
        mate.iter().all(Option::is_some)
    }

    /// A perfect pairing of `set` (which must be completable), in entrant indices.
    fn any_pairing(&self, set: &[usize]) -> Vec<(usize, usize)> {
        let adj: Vec<Vec<usize>> = set
            .iter()
            .map(|&a| {
                (0..set.len())
                    .filter(|&j| self.allowed(a, set[j]))
                    .collect()
            })
            .collect();
        let mate = max_matching(&adj);
        let mut pairs = Vec::new();
        for (i, m) in mate.iter().enumerate() {
            let j = m.expect("the set is completable");
            if i < j {
                pairs.push((set[i], set[j]));
            }
        }
        pairs
    }
}

/// Pairs a round. `entrants` are in rank order; `met` says who played whom. `None` when no
/// pairing meets the absolute criteria even with colours relaxed.
pub(crate) fn pair_round(entrants: &[Entrant], met: &[Vec<bool>]) -> Option<Pairing> {
    let n = entrants.len();
    if n < 2 {
        return None;
    }
    let prefs: Vec<Preference> = entrants.iter().map(|e| preference(&e.colours)).collect();
    for relaxed in [false, true] {
        let ctx = Ctx {
            entrants,
            prefs: prefs.clone(),
            met,
            relaxed,
        };
        // The bye (C.04.3 A.5, C.2): to the lowest ranked player with the fewest byes whose
        // absence leaves a set that can be paired.
        let byes: Vec<Option<usize>> = if n.is_multiple_of(2) {
            vec![None]
        } else {
            let fewest = entrants.iter().map(|e| e.byes).min().unwrap_or(0);
            (0..n)
                .rev()
                .filter(|&i| entrants[i].byes == fewest)
                .map(Some)
                .collect()
        };
        for bye in byes {
            let set: Vec<usize> = (0..n).filter(|&i| Some(i) != bye).collect();
            if !ctx.completable(&set) {
                continue;
            }
            let pairs = brackets(&ctx, &set);
            return Some(Pairing {
                pairs: board_order(entrants, pairs),
                bye,
                relaxed,
            });
        }
    }
    None
}

/// Colours and board order: boards by the higher score of the pair, then the better rank.
fn board_order(entrants: &[Entrant], pairs: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = pairs
        .into_iter()
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    pairs.sort_by_key(|&(x, y)| {
        (
            std::cmp::Reverse(entrants[x].half_points.max(entrants[y].half_points)),
            x,
        )
    });
    pairs
        .into_iter()
        .map(|(x, y)| {
            if x_gets_red(&entrants[x], &entrants[y]) {
                (x, y)
            } else {
                (y, x)
            }
        })
        .collect()
}

/// Pairs the score brackets from the top down, moving the unpaired players down to the next
/// bracket. `set` is completable and in rank order.
fn brackets(ctx: &Ctx, set: &[usize]) -> Vec<(usize, usize)> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &i in set {
        match groups.last_mut() {
            Some(g) if ctx.entrants[g[0]].half_points == ctx.entrants[i].half_points => g.push(i),
            _ => groups.push(vec![i]),
        }
    }
    let mut pairs = Vec::new();
    let mut floaters: Vec<usize> = Vec::new();
    for gi in 0..groups.len() {
        let below: Vec<usize> = groups[gi + 1..].concat();
        let last = gi + 1 == groups.len();
        let (made, left) = pair_bracket(ctx, &floaters, &groups[gi], &below, last);
        pairs.extend(made);
        floaters = left;
    }
    debug_assert!(floaters.is_empty());
    pairs
}

/// One candidate's outcome: pairs and the players moved down.
type Candidate = (Vec<(usize, usize)>, Vec<usize>);

/// Pairs one bracket: the players moved down from above (`mdps`, higher scores) and the
/// bracket's own `residents`, both in rank order. As many pairs as possible, each candidate
/// tried in the Dutch order (transpositions of S2, then exchanges between S1 and S2) in three
/// passes: first granting every colour preference, then every strong and absolute one, then
/// any; a candidate is taken only when everyone left (those moved down and all lower brackets)
/// can still be paired.
fn pair_bracket(
    ctx: &Ctx,
    mdps: &[usize],
    residents: &[usize],
    below: &[usize],
    last: bool,
) -> Candidate {
    let size = mdps.len() + residents.len();
    for pairs_wanted in (0..=size / 2).rev() {
        for floor in [Strength::Mild, Strength::Strong, Strength::None] {
            let mut search = Search {
                ctx,
                floor,
                budget: BUDGET,
                below,
                last,
            };
            if let Some(c) = search.heterogeneous(mdps, residents, pairs_wanted) {
                return c;
            }
        }
    }
    // Only the last bracket can get here (a non-last bracket can always move everyone down),
    // and only when the budget ran out: pair it by the matching, which exists.
    let all: Vec<usize> = mdps.iter().chain(residents).copied().collect();
    (ctx.any_pairing(&all), Vec::new())
}

struct Search<'a, 'c> {
    ctx: &'a Ctx<'c>,
    /// The colour preferences this pass grants: those at least this strong.
    floor: Strength,
    budget: u32,
    below: &'a [usize],
    last: bool,
}

impl Search<'_, '_> {
    fn ok(&self, a: usize, b: usize) -> bool {
        self.ctx.allowed(a, b) && self.ctx.fits(a, b, self.floor)
    }

    fn spend(&mut self) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    /// Whether a candidate with these players left unpaired may be taken.
    fn accepts(&mut self, left: &[usize]) -> bool {
        if self.last && !left.is_empty() {
            return false;
        }
        self.budget = self.budget.saturating_sub(20);
        let rest: Vec<usize> = left.iter().chain(self.below).copied().collect();
        self.ctx.completable(&rest)
    }

    /// The players moved down are paired first, each with the best ranked resident it may
    /// meet (in order), then the rest of the residents as a homogeneous bracket.
    fn heterogeneous(
        &mut self,
        mdps: &[usize],
        residents: &[usize],
        pairs: usize,
    ) -> Option<Candidate> {
        let k = mdps.len().min(pairs);
        if residents.len() < k {
            return None;
        }
        let mut chosen = Vec::with_capacity(k);
        let mut used = vec![false; residents.len()];
        self.mdp_step(mdps, k, residents, pairs - k, &mut chosen, &mut used)
    }

    fn mdp_step(
        &mut self,
        mdps: &[usize],
        k: usize,
        residents: &[usize],
        rest_pairs: usize,
        chosen: &mut Vec<(usize, usize)>,
        used: &mut Vec<bool>,
    ) -> Option<Candidate> {
        if chosen.len() == k {
            let remainder: Vec<usize> = residents
                .iter()
                .zip(used.iter())
                .filter(|(_, &u)| !u)
                .map(|(&r, _)| r)
                .collect();
            if remainder.len() < 2 * rest_pairs {
                return None;
            }
            let (mut pairs, mut left) = self.homogeneous(&remainder, rest_pairs, &mdps[k..])?;
            let mut all = chosen.clone();
            all.append(&mut pairs);
            left.sort_unstable();
            return Some((all, left));
        }
        let m = mdps[chosen.len()];
        for j in 0..residents.len() {
            if !self.spend() {
                return None;
            }
            if used[j] || !self.ok(m, residents[j]) {
                continue;
            }
            used[j] = true;
            chosen.push((m, residents[j]));
            if let Some(c) = self.mdp_step(mdps, k, residents, rest_pairs, chosen, used) {
                return Some(c);
            }
            chosen.pop();
            used[j] = false;
        }
        None
    }

    /// A homogeneous bracket `list` with `pairs` pairs: S1 = the first `pairs` players, S2 the
    /// rest; S2's transpositions in order, then single exchanges between S1 and S2 (the S1
    /// player nearest the bottom with the S2 player nearest the top first). `extra_left` (moved
    /// down players left unpaired) joins the players left over.
    fn homogeneous(
        &mut self,
        list: &[usize],
        pairs: usize,
        extra_left: &[usize],
    ) -> Option<Candidate> {
        let s1: Vec<usize> = list[..pairs].to_vec();
        let s2: Vec<usize> = list[pairs..].to_vec();
        if let Some(c) = self.transpositions(&s1, &s2, extra_left) {
            return Some(c);
        }
        let mut exchanges: Vec<(usize, usize)> = (0..s1.len())
            .flat_map(|i| (0..s2.len()).map(move |j| (i, j)))
            .collect();
        // Smallest distance in the bracket's order first; then the lower S1 player.
        exchanges.sort_by_key(|&(i, j)| (s1.len() - i + j, std::cmp::Reverse(i)));
        for (i, j) in exchanges {
            if self.budget == 0 {
                return None;
            }
            let mut t1 = s1.clone();
            let mut t2 = s2.clone();
            std::mem::swap(&mut t1[i], &mut t2[j]);
            t1.sort_unstable();
            t2.sort_unstable();
            if let Some(c) = self.transpositions(&t1, &t2, extra_left) {
                return Some(c);
            }
        }
        None
    }

    /// S1[i] meets the i-th player of the permuted S2, permutations in lexicographic order.
    fn transpositions(
        &mut self,
        s1: &[usize],
        s2: &[usize],
        extra_left: &[usize],
    ) -> Option<Candidate> {
        let mut used = vec![false; s2.len()];
        let mut chosen = Vec::with_capacity(s1.len());
        self.transpose_step(s1, s2, extra_left, &mut used, &mut chosen)
    }

    fn transpose_step(
        &mut self,
        s1: &[usize],
        s2: &[usize],
        extra_left: &[usize],
        used: &mut Vec<bool>,
        chosen: &mut Vec<(usize, usize)>,
    ) -> Option<Candidate> {
        if chosen.len() == s1.len() {
            let left: Vec<usize> = s2
                .iter()
                .zip(used.iter())
                .filter(|(_, &u)| !u)
                .map(|(&p, _)| p)
                .chain(extra_left.iter().copied())
                .collect();
            return if self.accepts(&left) {
                Some((chosen.clone(), left))
            } else {
                None
            };
        }
        let a = s1[chosen.len()];
        for j in 0..s2.len() {
            if !self.spend() {
                return None;
            }
            if used[j] || !self.ok(a, s2[j]) {
                continue;
            }
            used[j] = true;
            chosen.push((a, s2[j]));
            if let Some(c) = self.transpose_step(s1, s2, extra_left, used, chosen) {
                return Some(c);
            }
            chosen.pop();
            used[j] = false;
        }
        None
    }
}
