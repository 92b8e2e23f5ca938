//! Grouping free players who are already in rank order into games (pairs for the arena, triples
//! for the sanguo arena) without looking at every pair of players: each group is drawn from its
//! first player and at most [`WINDOW`] free players after it, so a wave costs O(n × WINDOW).
//! lila pairs its large arenas within slices of the rank order for the same reason
//! (`modules/tournament`, read for the idea).

/// How many free players after a group's first player are looked at to fill the group.
pub(crate) const WINDOW: usize = 12;

/// Groups the players `0..n` (in rank order) into groups of `size`. A group starts at the best
/// ranked player not yet grouped and takes, in rank order, the next players among the following
/// [`WINDOW`] free ones that `avoid` does not forbid with anyone already in the group; if that
/// leaves it short, it takes the nearest ones anyway (a rematch rather than a wait). A player who
/// cannot fill a group (the last one or two) is left out and waits for the next wave.
pub(crate) fn group_in_windows(
    n: usize,
    size: usize,
    avoid: impl Fn(usize, usize) -> bool,
) -> Vec<Vec<usize>> {
    let mut taken = vec![false; n];
    let mut groups = Vec::with_capacity(n / size.max(1));
    for first in 0..n {
        if taken[first] {
            continue;
        }
        let window: Vec<usize> = (first + 1..n).filter(|&j| !taken[j]).take(WINDOW).collect();
        let mut group = vec![first];
        for &j in &window {
            if group.len() == size {
                break;
            }
            if group.iter().all(|&g| !avoid(g, j)) {
                group.push(j);
            }
        }
        for &j in &window {
            if group.len() == size {
                break;
            }
            if !group.contains(&j) {
                group.push(j);
            }
        }
        if group.len() == size {
            group[1..].sort_unstable();
            for &g in &group {
                taken[g] = true;
            }
            groups.push(group);
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_neighbours_and_skips_the_avoided() {
        assert_eq!(
            group_in_windows(4, 2, |_, _| false),
            vec![vec![0, 1], vec![2, 3]]
        );
        let avoid = |a: usize, b: usize| (a.min(b), a.max(b)) == (0, 1);
        assert_eq!(group_in_windows(4, 2, avoid), vec![vec![0, 2], vec![1, 3]]);
        // Only two players who just met: they meet again rather than wait.
        assert_eq!(group_in_windows(2, 2, avoid), vec![vec![0, 1]]);
        assert_eq!(group_in_windows(5, 2, |_, _| false).len(), 2);
        assert_eq!(
            group_in_windows(7, 3, |_, _| false),
            vec![vec![0, 1, 2], vec![3, 4, 5]]
        );
    }
}
