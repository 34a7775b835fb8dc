//! Net files: a header (magic, format version, architecture), the quantised layers as
//! little-endian i16, and an FNV-1a checksum of everything before it.
//!
//! ```text
//! 0  "SHNN"          magic
//! 4  u32 version     1 or 2
//! 8  u32 inputs      768 x the layout's king buckets (`Layout::inputs`)
//! 12 u32 hidden      H
//! 16 u32 outputs     B, output buckets (1..=8; by the number of pieces, `output_bucket`)
//! 20 u32 qa, qb      255, 64
//! 28 u32 scale       400
//! 32 u32 layout      version 2 only: the input layout (`Layout::code`); version 1 is Plain
//! ..  i16 x inputs*H feature weights, feature-major
//!    i16 x H         feature biases
//!    i16 x B*2H      output weights per bucket (side to move, then the other side)
//!    i32 x B         output bias per bucket
//!    u64             FNV-1a of every byte above
//! ```

use super::network::{Layout, MAX_BUCKETS, MAX_HIDDEN, Network, QA, QB, SCALE};

const MAGIC: &[u8; 4] = b"SHNN";
/// Plain-layout nets are written as version 1 (so such files stay byte for byte what they
/// were); other layouts as version 2, whose header adds the layout.
const FORMAT_VERSIONS: [u32; 2] = [1, 2];
/// Header bytes of a version 2 file (version 1 lacks the last field, the layout).
const HEADER_BYTES_V2: usize = 36;

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).ok_or("size overflow")?;
        let out = self
            .bytes
            .get(self.at..end)
            .ok_or_else(|| format!("file ends at byte {} of {end}", self.bytes.len()))?;
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, String> {
        let b = self.take(n.checked_mul(2).ok_or("size overflow")?)?;
        Ok(b.chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
}

impl Network {
    /// Parses a net file; an error (never a panic) for anything that is not a net of this
    /// format and architecture.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4)? != MAGIC {
            return Err("not a Shears net file (bad magic)".into());
        }
        let version = r.u32()?;
        if !FORMAT_VERSIONS.contains(&version) {
            return Err(format!(
                "net format version {version}, this engine reads {FORMAT_VERSIONS:?}"
            ));
        }
        let (inputs, hidden, buckets) = (r.u32()? as usize, r.u32()? as usize, r.u32()? as usize);
        let (qa, qb, scale) = (r.u32()?, r.u32()?, r.u32()?);
        if buckets == 0 || buckets > MAX_BUCKETS {
            return Err(format!(
                "architecture {inputs} -> {hidden} x 2 -> 1 with {buckets} output buckets, this engine runs 1 to {MAX_BUCKETS}"
            ));
        }
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(format!("hidden size {hidden} is outside 1..={MAX_HIDDEN}"));
        }
        if (qa, qb, scale) != (QA as u32, QB as u32, SCALE as u32) {
            return Err(format!(
                "quantisation {qa}/{qb}/{scale}, this engine uses {QA}/{QB}/{SCALE}"
            ));
        }
        let layout = if version == 1 {
            Layout::Plain
        } else {
            let code = r.u32()?;
            Layout::from_code(code).ok_or_else(|| format!("unknown input layout {code}"))?
        };
        if inputs != layout.inputs() {
            return Err(format!(
                "{inputs} inputs, while the {} layout has {}",
                layout.name(),
                layout.inputs()
            ));
        }
        let ft_weights = r.i16s(layout.inputs() * hidden)?;
        let ft_bias = r.i16s(hidden)?;
        let out_weights = r.i16s(2 * hidden * buckets)?;
        let mut out_bias = Vec::with_capacity(buckets);
        for _ in 0..buckets {
            let ob = r.take(4)?;
            out_bias.push(i32::from_le_bytes([ob[0], ob[1], ob[2], ob[3]]));
        }
        let body_end = r.at;
        let sum = r.take(8)?;
        let mut sum_bytes = [0u8; 8];
        sum_bytes.copy_from_slice(sum);
        if u64::from_le_bytes(sum_bytes) != fnv1a(&bytes[..body_end]) {
            return Err("checksum mismatch (the file is damaged)".into());
        }
        if r.at != bytes.len() {
            return Err(format!(
                "{} bytes after the end of the net",
                bytes.len() - r.at
            ));
        }
        if out_weights.iter().any(|w| w.unsigned_abs() > 127) {
            return Err("output weights beyond +-127 (not clipped when trained)".into());
        }
        Network::from_parts(hidden, layout, ft_weights, ft_bias, out_weights, out_bias)
    }

    /// The net as a file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            HEADER_BYTES_V2
                + 2 * (self.layout.inputs() + 1 + 2 * self.buckets) * self.hidden
                + 4 * self.buckets
                + 8,
        );
        out.extend_from_slice(MAGIC);
        let plain = self.layout == Layout::Plain;
        for v in [
            if plain { 1 } else { 2 },
            self.layout.inputs() as u32,
            self.hidden as u32,
            self.buckets as u32,
            QA as u32,
            QB as u32,
            SCALE as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        if !plain {
            out.extend_from_slice(&self.layout.code().to_le_bytes());
        }
        for w in self
            .ft_weights
            .iter()
            .chain(&self.ft_bias)
            .chain(&self.out_weights)
        {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.out_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }
}

/// The net built into the binary (`nets/default.nnue`; its recipe is in docs/nnue.md).
const EMBEDDED: &[u8] = include_bytes!("../../../nets/default.nnue");

/// The built-in net: what `EvalFile <default>` loads.
pub(crate) fn embedded() -> Result<Network, String> {
    Network::from_bytes(EMBEDDED).map_err(|e| format!("the built-in net: {e}"))
}

/// Reads and checks a net file; errors name the file.
pub fn load_file(path: &std::path::Path) -> Result<Network, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Network::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::super::network::random_network;
    use super::*;

    #[test]
    fn the_built_in_net_loads_and_writes_back_the_same_bytes() {
        let net = embedded().unwrap();
        assert_eq!(net.to_bytes(), EMBEDDED);
    }

    /// Rewrites the checksum of an edited file, so what refuses it is the check of the edit.
    fn reseal(bytes: &mut [u8]) {
        let body = bytes.len() - 8;
        let sum = fnv1a(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }

    #[test]
    fn a_net_with_output_buckets_round_trips() {
        let net = super::super::network::random_network_with(24, 8, Layout::Plain, 5);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
        assert_eq!(net.buckets(), 8);
        // Declaring no buckets, or more than the engine runs, with a valid checksum: refused
        // by the architecture check (not by the checksum or a short read).
        for declared in [0u8, 9] {
            let mut bad = bytes.clone();
            bad[16] = declared;
            reseal(&mut bad);
            let err = Network::from_bytes(&bad).unwrap_err();
            assert!(err.contains("output buckets"), "{declared}: {err}");
        }
    }

    #[test]
    fn a_mirrored_net_round_trips_as_version_2() {
        let net = super::super::network::random_network_with(24, 2, Layout::Mirrored, 6);
        let bytes = net.to_bytes();
        assert_eq!(bytes[4], 2);
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back.layout(), Layout::Mirrored);
        assert_eq!(back, net);
        // A layout this engine does not know, with a valid checksum: refused.
        let mut bad = bytes.clone();
        bad[32] = 9;
        reseal(&mut bad);
        let err = Network::from_bytes(&bad).unwrap_err();
        assert!(err.contains("layout"), "{err}");
        // A king-bucket net: four blocks of inputs, declared in the header and checked.
        let kings = super::super::network::random_network_with(8, 2, Layout::Kings4, 7);
        let bytes = kings.to_bytes();
        assert_eq!(
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]),
            4 * 768
        );
        assert_eq!(Network::from_bytes(&bytes).unwrap(), kings);
        let mut bad = bytes.clone();
        bad[32] = 1; // a Mirrored header over Kings4's weights
        reseal(&mut bad);
        let err = Network::from_bytes(&bad).unwrap_err();
        assert!(err.contains("inputs"), "{err}");
        // Version 1 never carries a layout: a plain net is written as it always was.
        assert_eq!(random_network(24, 6).to_bytes()[4], 1);
    }

    #[test]
    fn a_net_round_trips_and_damage_is_refused() {
        let net = random_network(24, 5);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
        // Every truncation, a flipped bit anywhere, a wrong magic: errors, no panic.
        for cut in [0, 3, 4, 31, 32, 100, bytes.len() - 1] {
            assert!(Network::from_bytes(&bytes[..cut]).is_err(), "cut {cut}");
        }
        for at in [
            0,
            5,
            13,
            40,
            bytes.len() / 2,
            bytes.len() - 9,
            bytes.len() - 1,
        ] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(Network::from_bytes(&bad).is_err(), "flip at {at}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(Network::from_bytes(&long).is_err());
        assert!(Network::from_bytes(b"garbage").is_err());
    }
}
