//! Several programs sharing one machine: their sources side by side as one.
//!
//! The engines simulate threads; which program a thread belongs to matters only where pages
//! live (each program has its own address space) and in what is reported per program. So a
//! multi-process experiment is one source whose threads are the processes' threads in order,
//! with each process's virtual addresses moved into its own slice of a 64-bit space: process
//! `p`'s address `a` becomes `p << PROCESS_SHIFT | a`. Two processes then never share a page,
//! and anything that needs the process of a page (per-process placement, HyDM's per-application
//! selection, per-process results) reads it from the page number alone. x86-64 and AArch64 user
//! addresses fit in 48 bits; an address above that is refused rather than aliased.
//!
//! A process may start late: its instruction counts are shifted by `start_instructions`, which
//! the engines see as a stretch of work before its first access (time in timing mode).

use crate::record::Access;
use crate::source::{AccessSource, SourceError};

/// Bit where the process number begins in a tagged virtual address.
pub const PROCESS_SHIFT: u32 = 48;
/// Most processes one experiment can hold (the tag's 16 bits).
pub const MAX_PROCESSES: usize = 1 << (64 - PROCESS_SHIFT);

/// Process number of a tagged virtual address.
#[inline]
pub fn process_of_vaddr(vaddr: u64) -> usize {
    (vaddr >> PROCESS_SHIFT) as usize
}

/// Process number of a virtual page number of `page_shift` bits per page.
#[inline]
pub fn process_of_vpage(vpage: u64, page_shift: u32) -> usize {
    (vpage >> (PROCESS_SHIFT - page_shift.min(PROCESS_SHIFT))) as usize
}

/// One process: its source, name and delayed start.
pub struct Process {
    pub name: String,
    pub source: Box<dyn AccessSource>,
    /// Instructions every thread of the process waits before its first one.
    pub start_instructions: u64,
}

/// The processes' sources as one source (threads concatenated, addresses tagged).
pub struct ProcessSet {
    names: Vec<String>,
    sources: Vec<Box<dyn AccessSource>>,
    start: Vec<u64>,
    /// Per combined thread: (process, thread within it).
    owner: Vec<(u32, u32)>,
    /// First combined thread of every process, then the total.
    first_thread: Vec<usize>,
}

impl ProcessSet {
    pub fn new(processes: Vec<Process>) -> Result<Self, SourceError> {
        if processes.len() > MAX_PROCESSES {
            return Err(SourceError::Invalid(format!(
                "{} processes; at most {MAX_PROCESSES} fit the address tag",
                processes.len()
            )));
        }
        let mut set = ProcessSet {
            names: Vec::new(),
            sources: Vec::new(),
            start: Vec::new(),
            owner: Vec::new(),
            first_thread: vec![0],
        };
        for (p, proc_) in processes.into_iter().enumerate() {
            let threads = proc_.source.threads();
            set.owner.extend((0..threads).map(|t| (p as u32, t as u32)));
            set.first_thread.push(set.owner.len());
            set.names.push(proc_.name);
            set.sources.push(proc_.source);
            set.start.push(proc_.start_instructions);
        }
        Ok(set)
    }

    /// Combined thread range of every process, in order.
    pub fn thread_ranges(&self) -> Vec<std::ops::Range<usize>> {
        self.first_thread.windows(2).map(|w| w[0]..w[1]).collect()
    }
}

impl AccessSource for ProcessSet {
    fn threads(&self) -> usize {
        self.owner.len()
    }

    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
        let (p, t) = self.owner[thread];
        let p = p as usize;
        self.sources[p].next_batch(t as usize, out)?;
        let tag = (p as u64) << PROCESS_SHIFT;
        let start = self.start[p];
        for a in out.iter_mut() {
            if a.vaddr >> PROCESS_SHIFT != 0 {
                return Err(SourceError::Invalid(format!(
                    "process `{}` thread {t}: address {:#x} is above the 48-bit user address space a process may use",
                    self.names[p], a.vaddr
                )));
            }
            a.vaddr |= tag;
            a.instr = a.instr.saturating_add(start);
        }
        Ok(())
    }

    fn describe(&self) -> serde_json::Value {
        let list: Vec<serde_json::Value> = self
            .names
            .iter()
            .zip(&self.sources)
            .zip(&self.start)
            .map(|((n, s), &start)| {
                serde_json::json!({"name": n, "threads": s.threads(), "start_instructions": start, "workload": s.describe()})
            })
            .collect();
        serde_json::json!({ "processes": list })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{collect_all, VecSource};

    fn src(streams: Vec<Vec<Access>>) -> Box<dyn AccessSource> {
        Box::new(VecSource::new(streams))
    }

    #[test]
    fn threads_concatenate_and_addresses_are_tagged_per_process() {
        let a = src(vec![
            vec![Access::read(1, 0x1000, 8)],
            vec![Access::write(2, 0x2000, 8)],
        ]);
        let b = src(vec![vec![Access::read(5, 0x1000, 8)]]);
        let mut set = ProcessSet::new(vec![
            Process {
                name: "a".into(),
                source: a,
                start_instructions: 0,
            },
            Process {
                name: "b".into(),
                source: b,
                start_instructions: 100,
            },
        ])
        .unwrap();
        assert_eq!(set.threads(), 3);
        assert_eq!(set.thread_ranges(), vec![0..2, 2..3]);
        let all = collect_all(&mut set).unwrap();
        assert_eq!(all[0][0].vaddr, 0x1000);
        assert_eq!(
            all[2][0].vaddr,
            (1u64 << PROCESS_SHIFT) | 0x1000,
            "same address, other process"
        );
        assert_eq!(all[2][0].instr, 105, "start delays the process");
        assert_eq!(process_of_vaddr(all[2][0].vaddr), 1);
        assert_eq!(process_of_vpage(all[2][0].vaddr >> 12, 12), 1);
        assert_eq!(process_of_vpage(all[1][0].vaddr >> 21, 21), 0);
    }

    #[test]
    fn an_address_beyond_48_bits_is_refused_naming_the_process() {
        let a = src(vec![vec![Access::read(1, 1u64 << 50, 8)]]);
        let mut set = ProcessSet::new(vec![Process {
            name: "big".into(),
            source: a,
            start_instructions: 0,
        }])
        .unwrap();
        let err = collect_all(&mut set).unwrap_err().to_string();
        assert!(err.contains("`big`") && err.contains("48-bit"), "{err}");
    }
}
