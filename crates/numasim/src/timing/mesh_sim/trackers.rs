//! Request trackers of home nodes and memory controllers.

/// Tracker entries of a set of devices (home nodes' slices, or memory controllers): `per`
/// entries each, every entry the time it frees.
///
/// Why entries and not a [`crate::timing::timeline::Timeline`]: an entry is held from a request's
/// arrival until its transaction completes (the CompAck at a home node, the data leaving a
/// controller), which is known only after the rest of the transaction is booked, so the hold's
/// length cannot be given when the entry is claimed. Each entry is a serial resource instead,
/// claimed (busy until released) and then released at a known time, the rule a core's miss
/// slots follow: a device never holds more than `per` requests at once.
#[derive(Debug, Clone)]
pub(super) struct Trackers {
    pub(super) per: usize,
    pub(super) free_at: Vec<u64>,
    pub(super) waits: u64,
    pub(super) wait_ps: u64,
    /// Tests: when each entry was claimed, and every (entry, claimed, released) hold.
    #[cfg(test)]
    pub(super) claimed_at: Vec<u64>,
    #[cfg(test)]
    pub(super) holds: Vec<(usize, u64, u64)>,
}

impl Trackers {
    pub(super) fn new(devices: usize, per: u32) -> Trackers {
        Trackers {
            per: per as usize,
            free_at: vec![0; devices * per as usize],
            waits: 0,
            wait_ps: 0,
            #[cfg(test)]
            claimed_at: vec![0; devices * per as usize],
            #[cfg(test)]
            holds: Vec::new(),
        }
    }

    pub(super) fn enabled(&self) -> bool {
        self.per > 0
    }

    /// Claims an entry of device `dev` for a request that could arrive at `want`: the entry
    /// that freed latest at or before `want` (so entries freeing later stay free for others),
    /// else the one freeing first. Returns the entry and when the request gets it.
    pub(super) fn claim(&mut self, dev: usize, want: u64) -> (usize, u64) {
        let (entry, start) = self.pick(dev, want);
        self.waits += 1;
        self.wait_ps += start - want;
        // Busy until released (a transaction may claim another entry of the same device).
        self.free_at[entry] = u64::MAX;
        #[cfg(test)]
        {
            self.claimed_at[entry] = start;
        }
        (entry, start)
    }

    /// The entry [`Self::claim`] would take for `want`, and when (nothing claimed).
    pub(super) fn pick(&self, dev: usize, want: u64) -> (usize, u64) {
        let base = dev * self.per;
        let (mut fit, mut first) = (None::<(usize, u64)>, (base, u64::MAX));
        for (i, &f) in self.free_at[base..base + self.per].iter().enumerate() {
            if f <= want && fit.is_none_or(|(_, g)| f > g) {
                fit = Some((base + i, f));
            }
            if f < first.1 {
                first = (base + i, f);
            }
        }
        match fit {
            Some((e, _)) => (e, want),
            None => (first.0, first.1),
        }
    }

    pub(super) fn release(&mut self, entry: usize, at: u64) {
        self.free_at[entry] = at;
        #[cfg(test)]
        self.holds.push((entry, self.claimed_at[entry], at));
    }

    pub(super) fn mean_wait(&self, cycle_ps: u64) -> f64 {
        self.wait_ps as f64 / self.waits.max(1) as f64 / cycle_ps as f64
    }
}
