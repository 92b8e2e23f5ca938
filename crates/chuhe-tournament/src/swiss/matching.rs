//! Maximum matching in a general graph (Edmonds' blossom algorithm, O(V³)): whether a set of
//! players can all be paired without a forbidden pairing. Written from the algorithm's textbook
//! description (J. Edmonds, "Paths, trees, and flowers", 1965): grow alternating trees from each
//! free vertex breadth-first, shrink odd cycles (blossoms) to their base, augment along the
//! first path found to another free vertex.

const NONE: usize = usize::MAX;

/// A maximum matching of the graph with adjacency lists `adj` (vertices `0..adj.len()`, each
/// edge listed at both ends): `mate[v]` is v's partner or `None`.
pub(crate) fn max_matching(adj: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = adj.len();
    let mut m = Search {
        adj,
        mate: vec![NONE; n],
        parent: vec![NONE; n],
        base: (0..n).collect(),
        used: vec![false; n],
        in_blossom: vec![false; n],
        queue: Vec::with_capacity(n),
    };
    // A greedy start halves the work of the searches.
    for v in 0..n {
        if m.mate[v] == NONE {
            if let Some(&w) = adj[v].iter().find(|&&w| m.mate[w] == NONE) {
                m.mate[v] = w;
                m.mate[w] = v;
            }
        }
    }
    for root in 0..n {
        if m.mate[root] == NONE {
            if let Some(end) = m.find_path(root) {
                m.augment(end);
            }
        }
    }
    m.mate
        .iter()
        .map(|&w| if w == NONE { None } else { Some(w) })
        .collect()
}

struct Search<'a> {
    adj: &'a [Vec<usize>],
    mate: Vec<usize>,
    parent: Vec<usize>,
    base: Vec<usize>,
    used: Vec<bool>,
    in_blossom: Vec<bool>,
    queue: Vec<usize>,
}

impl Search<'_> {
    /// The nearest common ancestor of the bases of `a` and `b` in the alternating tree.
    fn common_base(&self, mut a: usize, mut b: usize) -> usize {
        let mut seen = vec![false; self.mate.len()];
        loop {
            a = self.base[a];
            seen[a] = true;
            if self.mate[a] == NONE {
                break;
            }
            a = self.parent[self.mate[a]];
        }
        loop {
            b = self.base[b];
            if seen[b] {
                return b;
            }
            b = self.parent[self.mate[b]];
        }
    }

    /// Marks the blossom's vertices on the path from `v` up to `blossom_base`, pointing their
    /// parents across the cycle through `child`.
    fn mark_path(&mut self, mut v: usize, blossom_base: usize, mut child: usize) {
        while self.base[v] != blossom_base {
            let w = self.mate[v];
            self.in_blossom[self.base[v]] = true;
            self.in_blossom[self.base[w]] = true;
            self.parent[v] = child;
            child = w;
            v = self.parent[w];
        }
    }

    /// Breadth-first search for an augmenting path from the free vertex `root`; returns the free
    /// vertex at its other end.
    fn find_path(&mut self, root: usize) -> Option<usize> {
        let n = self.mate.len();
        self.used.iter_mut().for_each(|u| *u = false);
        self.parent.iter_mut().for_each(|p| *p = NONE);
        for (i, b) in self.base.iter_mut().enumerate() {
            *b = i;
        }
        self.used[root] = true;
        self.queue.clear();
        self.queue.push(root);
        let mut head = 0;
        while head < self.queue.len() {
            let v = self.queue[head];
            head += 1;
            for k in 0..self.adj[v].len() {
                let to = self.adj[v][k];
                if self.base[v] == self.base[to] || self.mate[v] == to {
                    continue;
                }
                if to == root || (self.mate[to] != NONE && self.parent[self.mate[to]] != NONE) {
                    let b = self.common_base(v, to);
                    self.in_blossom.iter_mut().for_each(|x| *x = false);
                    self.mark_path(v, b, to);
                    self.mark_path(to, b, v);
                    for i in 0..n {
                        if self.in_blossom[self.base[i]] {
                            self.base[i] = b;
                            if !self.used[i] {
                                self.used[i] = true;
                                self.queue.push(i);
                            }
                        }
                    }
                } else if self.parent[to] == NONE {
                    self.parent[to] = v;
                    if self.mate[to] == NONE {
                        return Some(to);
                    }
                    let next = self.mate[to];
                    self.used[next] = true;
                    self.queue.push(next);
                }
            }
        }
        None
    }

    /// Flips the matching along the path ending at the free vertex `v`.
    fn augment(&mut self, mut v: usize) {
        while v != NONE {
            let pv = self.parent[v];
            let next = self.mate[pv];
            self.mate[v] = pv;
            self.mate[pv] = v;
            v = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in edges {
            adj[a].push(b);
            adj[b].push(a);
        }
        adj
    }

    fn size(m: &[Option<usize>]) -> usize {
        m.iter().filter(|x| x.is_some()).count() / 2
    }

    /// Every matching found is a matching of the graph.
    fn valid(adj: &[Vec<usize>], m: &[Option<usize>]) -> bool {
        m.iter()
            .enumerate()
            .all(|(v, w)| w.is_none_or(|w| m[w] == Some(v) && adj[v].contains(&w)))
    }

    /// The size of a maximum matching by trying everything (small graphs only).
    fn brute(adj: &[Vec<usize>], free: u32) -> usize {
        let Some(v) = (0..adj.len()).find(|&v| free & (1 << v) != 0) else {
            return 0;
        };
        let rest = free & !(1 << v);
        let mut best = brute(adj, rest);
        for &w in &adj[v] {
            if rest & (1 << w) != 0 {
                best = best.max(1 + brute(adj, rest & !(1 << w)));
            }
        }
        best
    }

    #[test]
    fn blossoms_are_found() {
        // A triangle with a tail on each corner: the greedy start pairs the triangle's corners
        // badly; a perfect matching needs the blossom.
        let adj = graph(6, &[(0, 1), (1, 2), (2, 0), (0, 3), (1, 4), (2, 5)]);
        let m = max_matching(&adj);
        assert!(valid(&adj, &m));
        assert_eq!(size(&m), 3);
        // Two triangles joined by one edge: 3 pairs.
        let adj = graph(6, &[(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)]);
        assert_eq!(size(&max_matching(&adj)), 3);
        // A star: one pair.
        let adj = graph(4, &[(0, 1), (0, 2), (0, 3)]);
        assert_eq!(size(&max_matching(&adj)), 1);
    }

    #[test]
    fn agrees_with_brute_force_on_random_graphs() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..400 {
            let n = 2 + (next() % 11) as usize;
            let density = next() % 100;
            let mut edges = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    if next() % 100 < density {
                        edges.push((a, b));
                    }
                }
            }
            let adj = graph(n, &edges);
            let m = max_matching(&adj);
            assert!(valid(&adj, &m));
            assert_eq!(size(&m), brute(&adj, (1 << n) - 1), "{n} {edges:?}");
        }
    }
}
