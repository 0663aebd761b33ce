//! `--shard K/N`: a stable partition of a tree's files, for splitting a run across CI jobs.
//!
//! A file's shard is a function of its root-relative path and N alone (the first eight
//! bytes of the path's SHA-256, big-endian, modulo N), so a file stays in its shard as the
//! tree grows or shrinks around it, and every job of a matrix computes the same partition
//! without seeing the others. The rule is part of the contract: changing it would move
//! files between the shards of running matrices; the golden test below pins it.

use sha2::{Digest, Sha256};

/// Shard `k` (1-based) of `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    pub k: u32,
    pub n: u32,
}

impl Shard {
    /// Whether the file at `rel` (root-relative, `/`-separated) is in this shard.
    pub fn holds(&self, rel: &str) -> bool {
        shard_of(rel, self.n) == self.k
    }
}

/// The shard (1-based) of `n` that `rel` belongs to.
pub fn shard_of(rel: &str, n: u32) -> u32 {
    let digest = Sha256::digest(rel.as_bytes());
    let head = u64::from_be_bytes(digest[..8].try_into().expect("eight bytes"));
    (head % u64::from(n.max(1))) as u32 + 1
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `K/N` with 1 ≤ K ≤ N.
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}` is not K/N (for example 1/4)"))?;
        let number = |part: &str| {
            part.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{s}` is not K/N: `{part}` is not a whole number"))
        };
        let (k, n) = (number(k)?, number(n)?);
        if n == 0 || k == 0 || k > n {
            return Err(format!("`{s}`: K must be between 1 and N"));
        }
        Ok(Shard { k, n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_partition_rule_is_pinned() {
        // Running matrices depend on these: a file must never change shards.
        let got: Vec<u32> = [
            "content/talks/uvod.md",
            "README.md",
            "a/b/c.json",
            "úvod.md",
        ]
        .iter()
        .map(|p| shard_of(p, 4))
        .collect();
        assert_eq!(got, GOLDEN);
    }

    const GOLDEN: [u32; 4] = [4, 2, 1, 3];

    #[test]
    fn every_path_is_in_exactly_one_shard() {
        for n in 1..=5 {
            for i in 0..200 {
                let path = format!("dir{}/file{i}.md", i % 7);
                let holders = (1..=n).filter(|&k| Shard { k, n }.holds(&path)).count();
                assert_eq!(holders, 1, "{path} in {n}");
            }
        }
        // And the shards are not lopsided.
        let sizes: Vec<usize> = (1..=4)
            .map(|k| {
                (0..4000)
                    .filter(|i| Shard { k, n: 4 }.holds(&format!("f{i}.md")))
                    .count()
            })
            .collect();
        assert!(sizes.iter().all(|&s| (850..1150).contains(&s)), "{sizes:?}");
    }

    #[test]
    fn parsing() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { k: 2, n: 3 }));
        assert_eq!(Shard { k: 2, n: 3 }.to_string(), "2/3");
        for bad in ["0/3", "4/3", "1/0", "1", "a/2", "1/-2", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
