//! `tpcc`: a TPC-C-like transaction mix over warehouse tables laid out in the address space.
//!
//! Tables (each its own array; rows padded to whole 64-B lines, sizes from the TPC-C schema):
//! `warehouse` (W rows, 128 B), `district` (10 per warehouse, 128 B), `customer`
//! (`customers_per_district` per district, 704 B), a customer-by-last-name index per district
//! (8-B entries `(name, id)` sorted by name), `item` (`items` rows, 128 B, read-only), `stock`
//! (W × `items`, 320 B), and per district a ring of order slots: `orders` (32 B),
//! `new_order` (8 B), `order_line` (15 × 64 B per order) and `history` (64 B). Primary keys are
//! dense, so a row is found by address arithmetic (a hash/array index; B-tree descents are not
//! modelled) except customers selected by last name, which binary-search the name index.
//!
//! Thread t is a terminal bound to home warehouse `t·W/T` (threads in blocks, so neighbouring
//! threads share a warehouse) and home district (its rank among that warehouse's threads, mod
//! 10). Each thread runs `transactions_per_thread` transactions drawn from its own seeded stream
//! with TPC-C's minimum mix: 45 % new-order, 43 % payment, 4 % order-status, 4 % delivery, 4 %
//! stock-level; keys use TPC-C's NURand (customers A = 1023, last names A = 255, items
//! A = 8191). New-order: 5–15 lines, 1 % of them supplied by a remote warehouse; payment: 15 %
//! for a customer of a remote warehouse, 60 % of customers chosen by last name (also
//! order-status); delivery delivers the oldest undelivered order of each of the home
//! warehouse's 10 districts; stock-level reads the last 20 orders' lines and their stock rows.
//! Transactions change the real table contents (stock quantities, next order ids, balances, the
//! undelivered-order queues), so later transactions depend on earlier ones. Threads run in
//! rounds (see [`crate::omp`]), so shared updates happen in a fixed order: the output is
//! deterministic for a seed. First, the tables are loaded in parallel: unit (w, d) loads its
//! district, customers, name index, initial orders (`customers_per_district` orders, the last
//! 30 % undelivered, as TPC-C populates), a tenth of warehouse w's stock and a share of `item`.
//!
//! Cost model: a transaction's fixed work (parsing, control, logging: 400 instructions) is
//! charged to its first access; reading or writing a row touches each 64-B line the
//! transaction uses, 4 instructions per line (3 for loading); a name-index probe 5; each
//! computed value (amounts, taxes: 2 flops per order line) is charged to the next store.
//! Real DBMSs spend far more instructions per transaction; this counts the data work only.

use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::parse;
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::{stream, Rng};
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::AddressSpace;
use numasim_trace::AccessSource;
use rand::Rng as _;

numasim_config::declare_params! {
    pub section struct TpccParams {
        /// terminals; thread t's home warehouse is t·W/T
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        /// warehouses W (10 districts each)
        warehouses: usize = 4, unit "warehouses", Check::Range(1.0, 1000.0);
        /// customers (and initial orders) per district (TPC-C: 3000)
        customers_per_district: usize = 3000, unit "customers", Check::Range(30.0, 3000.0);
        /// items, and stock rows per warehouse (TPC-C: 100000)
        items: usize = 100_000, unit "items", Check::Range(100.0, 100000.0);
        /// transactions each thread runs
        transactions_per_thread: usize = 5000, unit "transactions", Check::Range(1.0, 1e7);
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "tpcc",
        summary: "TPC-C-like mix (new-order, payment, order-status, delivery, stock-level) over warehouse tables",
        paper: "StarNUMA §IV-E (TPCC, 64 warehouses on the Silo in-memory DBMS)",
        params: TpccParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: TpccParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Tpcc::new(p, seed)?, threads)))
}

const DISTRICTS: usize = 10;
const MAX_LINES: usize = 15;
const LINE: u64 = 64;
const WAREHOUSE_BYTES: u64 = 128;
const DISTRICT_BYTES: u64 = 128;
const CUSTOMER_BYTES: u64 = 704;
const ITEM_BYTES: u64 = 128;
const STOCK_BYTES: u64 = 320;
const ORDER_BYTES: u64 = 32;
const NEW_ORDER_BYTES: u64 = 8;
const ORDER_LINE_BYTES: u64 = 64;
const HISTORY_BYTES: u64 = 64;
const NAME_ENTRY_BYTES: u64 = 8;
const TXN_INSTRUCTIONS: u64 = 400;

/// Transaction types, in TPC-C's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Txn {
    NewOrder,
    Payment,
    OrderStatus,
    Delivery,
    StockLevel,
}

/// The TPC-C kernel (public so tests can check table invariants).
pub struct Tpcc {
    params: TpccParams,
    seed: u64,
    cap: usize,
    home: Vec<(usize, usize)>,
    rngs: Vec<Rng>,
    c_last: u64,
    c_id: u64,
    c_item: u64,
    // Table contents.
    w_ytd: Vec<f64>,
    d_ytd: Vec<f64>,
    d_next_o_id: Vec<usize>,
    /// Oldest undelivered order per district.
    d_oldest_new: Vec<usize>,
    c_balance: Vec<f64>,
    c_last_order: Vec<usize>,
    c_bad_credit: Vec<bool>,
    /// Per district: (last-name id, customer) sorted.
    name_index: Vec<Vec<(u16, u32)>>,
    stock_qty: Vec<u16>,
    o_c_id: Vec<u32>,
    o_ol_cnt: Vec<u8>,
    o_amount: Vec<f64>,
    ol_item: Vec<u32>,
    /// Stock-level's distinct-item buffer (reused).
    seen: Vec<u32>,
    h_next: Vec<usize>,
    // Bases.
    a_w: u64,
    a_d: u64,
    a_c: u64,
    a_name: u64,
    a_i: u64,
    a_s: u64,
    a_o: u64,
    a_no: u64,
    a_ol: u64,
    a_h: u64,
    step: u8,
    /// Transactions run, by type.
    pub counts: [u64; 5],
    /// Orders delivered.
    pub delivered: u64,
    /// Distinct low-stock items found by stock-level transactions, summed.
    pub low_stock: u64,
}

/// TPC-C's non-uniform random number NURand(A, x, y) with run constant `c`.
fn nurand(rng: &mut Rng, a: u64, c: u64, x: u64, y: u64) -> u64 {
    (((rng.gen_range(0..=a) | rng.gen_range(x..=y)) + c) % (y - x + 1)) + x
}

/// Touches the lines `[off, off + bytes)` of a row at `base`: reads (or writes) one word per line.
#[inline]
fn row(e: &mut Emitter, write: bool, base: u64, bytes: u64) {
    let mut at = base;
    while at < base + bytes {
        if write {
            e.write(4, at, 8);
        } else {
            e.read(3, at, 8);
        }
        at += LINE;
    }
}

impl Tpcc {
    pub fn new(params: TpccParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        let (w_count, t_count, cpd) = (params.warehouses, params.threads, params.customers_per_district);
        let home: Vec<(usize, usize)> = (0..t_count)
            .map(|t| {
                let w = t * w_count / t_count;
                let first = (0..=t).find(|&u| u * w_count / t_count == w).expect("t itself");
                (w, (t - first) % DISTRICTS)
            })
            .collect();
        let mut per_district = vec![0usize; w_count * DISTRICTS];
        for &(w, d) in &home {
            per_district[w * DISTRICTS + d] += 1;
        }
        let busiest = per_district.iter().copied().max().unwrap_or(0);
        let cap = (cpd + busiest * params.transactions_per_thread + 1).next_power_of_two();
        let districts = w_count * DISTRICTS;
        let mut rng = stream(seed, 0x7CC);
        let (c_last, c_id, c_item) = (rng.gen_range(0..=255), rng.gen_range(0..=1023), rng.gen_range(0..=8191));
        let customers = districts * cpd;
        let mut name_index = Vec::with_capacity(districts);
        for _ in 0..districts {
            let mut idx: Vec<(u16, u32)> = (0..cpd)
                .map(|c| {
                    let name = if c < 1000 {
                        c as u64
                    } else {
                        nurand(&mut rng, 255, c_last, 0, 999)
                    };
                    (name as u16, c as u32)
                })
                .collect();
            idx.sort_unstable();
            name_index.push(idx);
        }
        let c_bad_credit = (0..customers).map(|_| rng.gen_bool(0.1)).collect();
        let stock_qty = (0..w_count * params.items).map(|_| rng.gen_range(10..=100)).collect();
        // Initial orders: o_id 0..cpd, customer = a permutation, the last 30 % undelivered.
        let slots = districts * cap;
        let mut o_c_id = vec![0u32; slots];
        let mut o_ol_cnt = vec![0u8; slots];
        let mut o_amount = vec![0.0; slots];
        let mut ol_item = vec![0u32; slots * MAX_LINES];
        let mut c_last_order = vec![0usize; customers];
        for dist in 0..districts {
            let mut perm: Vec<u32> = (0..cpd as u32).collect();
            for i in (1..cpd).rev() {
                perm.swap(i, rng.gen_range(0..=i));
            }
            for o in 0..cpd {
                let s = dist * cap + o;
                o_c_id[s] = perm[o];
                c_last_order[dist * cpd + perm[o] as usize] = o;
                let cnt = rng.gen_range(5..=MAX_LINES);
                o_ol_cnt[s] = cnt as u8;
                for l in 0..cnt {
                    ol_item[s * MAX_LINES + l] = rng.gen_range(0..params.items as u32);
                }
                o_amount[s] = if o >= cpd * 7 / 10 {
                    rng.gen_range(0.01..9999.99)
                } else {
                    0.0
                };
            }
        }
        let mut space = AddressSpace::new();
        let ws = w_count as u64;
        let ds = districts as u64;
        Ok(Tpcc {
            a_w: space.alloc(ws * WAREHOUSE_BYTES),
            a_d: space.alloc(ds * DISTRICT_BYTES),
            a_c: space.alloc(customers as u64 * CUSTOMER_BYTES),
            a_name: space.alloc(customers as u64 * NAME_ENTRY_BYTES),
            a_i: space.alloc(params.items as u64 * ITEM_BYTES),
            a_s: space.alloc(ws * params.items as u64 * STOCK_BYTES),
            a_o: space.alloc(slots as u64 * ORDER_BYTES),
            a_no: space.alloc(slots as u64 * NEW_ORDER_BYTES),
            a_ol: space.alloc((slots * MAX_LINES) as u64 * ORDER_LINE_BYTES),
            a_h: space.alloc(slots as u64 * HISTORY_BYTES),
            rngs: (0..t_count).map(|t| stream(seed, 0x7CC0_0000 + t as u64)).collect(),
            w_ytd: vec![300_000.0; w_count],
            d_ytd: vec![30_000.0; districts],
            d_next_o_id: vec![cpd; districts],
            d_oldest_new: vec![cpd * 7 / 10; districts],
            c_balance: vec![-10.0; customers],
            c_last_order,
            c_bad_credit,
            name_index,
            stock_qty,
            o_c_id,
            o_ol_cnt,
            o_amount,
            ol_item,
            seen: Vec::with_capacity(20 * MAX_LINES),
            low_stock: 0,
            h_next: vec![0; districts],
            home,
            cap,
            c_last,
            c_id,
            c_item,
            step: 0,
            counts: [0; 5],
            delivered: 0,
            params,
            seed,
        })
    }

    /// Undelivered orders of district `dist` (for invariant checks).
    pub fn undelivered(&self, dist: usize) -> usize {
        self.d_next_o_id[dist] - self.d_oldest_new[dist]
    }

    /// Sum of warehouse year-to-date amounts and of district ones (TPC-C consistency condition 1:
    /// equal up to the initial values).
    pub fn ytd_sums(&self) -> (f64, f64) {
        (self.w_ytd.iter().sum(), self.d_ytd.iter().sum())
    }

    fn slot(&self, dist: usize, o_id: usize) -> usize {
        dist * self.cap + o_id % self.cap
    }

    fn customer_addr(&self, dist: usize, c: usize) -> u64 {
        self.a_c + (dist * self.params.customers_per_district + c) as u64 * CUSTOMER_BYTES
    }

    /// Picks a customer of `dist`: 60 % by last name (binary search of the name index, middle
    /// match), else by id.
    fn pick_customer(&mut self, t: usize, dist: usize, e: &mut Emitter) -> usize {
        let cpd = self.params.customers_per_district as u64;
        let rng = &mut self.rngs[t];
        if rng.gen_bool(0.6) {
            let name = nurand(rng, 255, self.c_last, 0, 999) as u16;
            let idx = &self.name_index[dist];
            let base = self.a_name + (dist * idx.len()) as u64 * NAME_ENTRY_BYTES;
            let (mut lo, mut hi) = (0, idx.len());
            while lo < hi {
                let mid = (lo + hi) / 2;
                e.read(5, base + mid as u64 * NAME_ENTRY_BYTES, 8);
                if idx[mid].0 < name {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            let end = lo + idx[lo..].iter().take_while(|x| x.0 == name).count();
            if end > lo {
                for (k, &(_, c)) in idx.iter().enumerate().take(end).skip(lo) {
                    e.read(5, base + k as u64 * NAME_ENTRY_BYTES, 8);
                    // Matching customers are read to sort them by first name.
                    row(e, false, self.customer_addr(dist, c as usize), 2 * LINE);
                }
                return idx[lo + (end - lo - 1) / 2].1 as usize;
            }
        }
        let rng = &mut self.rngs[t];
        nurand(rng, 1023, self.c_id, 0, cpd - 1) as usize
    }

    fn new_order(&mut self, t: usize, e: &mut Emitter) {
        let (w, d) = self.home[t];
        let dist = w * DISTRICTS + d;
        let w_count = self.params.warehouses;
        let cpd = self.params.customers_per_district as u64;
        let rng = &mut self.rngs[t];
        let c = nurand(rng, 1023, self.c_id, 0, cpd - 1) as usize;
        let cnt = rng.gen_range(5..=MAX_LINES);
        row(e, false, self.a_w + w as u64 * WAREHOUSE_BYTES, LINE);
        let d_addr = self.a_d + dist as u64 * DISTRICT_BYTES;
        row(e, false, d_addr, LINE);
        e.write(4, d_addr, 8);
        let o_id = self.d_next_o_id[dist];
        self.d_next_o_id[dist] += 1;
        row(e, false, self.customer_addr(dist, c), 2 * LINE);
        let s = self.slot(dist, o_id);
        e.write(4, self.a_o + s as u64 * ORDER_BYTES, 8);
        e.write(4, self.a_no + s as u64 * NEW_ORDER_BYTES, 8);
        let mut total = 0.0;
        for l in 0..cnt {
            let rng = &mut self.rngs[t];
            let item = nurand(rng, 8191, self.c_item, 0, self.params.items as u64 - 1) as usize;
            let supply = if w_count > 1 && rng.gen_bool(0.01) {
                (w + 1 + rng.gen_range(0..w_count - 1)) % w_count
            } else {
                w
            };
            let qty = rng.gen_range(1..=10u16);
            row(e, false, self.a_i + item as u64 * ITEM_BYTES, 2 * LINE);
            let si = supply * self.params.items + item;
            let s_addr = self.a_s + si as u64 * STOCK_BYTES;
            // Quantity, the district's dist_xx field and the data field.
            e.read(3, s_addr, 8);
            e.read(3, s_addr + LINE + (d as u64 * 24) % (3 * LINE), 8);
            e.read(3, s_addr + 4 * LINE, 8);
            let q = self.stock_qty[si];
            self.stock_qty[si] = if q >= qty + 10 { q - qty } else { q + 91 - qty };
            e.write(4, s_addr, 8);
            self.ol_item[s * MAX_LINES + l] = item as u32;
            total += qty as f64 * (1.0 + (item % 100) as f64);
            e.flops(2);
            e.write(6, self.a_ol + (s * MAX_LINES + l) as u64 * ORDER_LINE_BYTES, 8);
        }
        self.o_c_id[s] = c as u32;
        self.o_ol_cnt[s] = cnt as u8;
        self.o_amount[s] = total;
        self.c_last_order[dist * self.params.customers_per_district + c] = o_id;
    }

    fn payment(&mut self, t: usize, e: &mut Emitter) {
        let (w, d) = self.home[t];
        let w_count = self.params.warehouses;
        let rng = &mut self.rngs[t];
        let amount = rng.gen_range(1.0..5000.0);
        let (cw, cd) = if w_count > 1 && rng.gen_bool(0.15) {
            (
                (w + 1 + rng.gen_range(0..w_count - 1)) % w_count,
                rng.gen_range(0..DISTRICTS),
            )
        } else {
            (w, d)
        };
        let w_addr = self.a_w + w as u64 * WAREHOUSE_BYTES;
        row(e, false, w_addr, LINE);
        e.flops(1);
        e.write(4, w_addr, 8);
        self.w_ytd[w] += amount;
        let dist = w * DISTRICTS + d;
        let d_addr = self.a_d + dist as u64 * DISTRICT_BYTES;
        row(e, false, d_addr, LINE);
        e.flops(1);
        e.write(4, d_addr, 8);
        self.d_ytd[dist] += amount;
        let cdist = cw * DISTRICTS + cd;
        let c = self.pick_customer(t, cdist, e);
        let c_addr = self.customer_addr(cdist, c);
        row(e, false, c_addr, 2 * LINE);
        let ci = cdist * self.params.customers_per_district + c;
        self.c_balance[ci] -= amount;
        e.flops(2);
        e.write(4, c_addr + LINE, 8);
        if self.c_bad_credit[ci] {
            // c_data (500 B) is rewritten.
            row(e, false, c_addr + 3 * LINE, 8 * LINE);
            row(e, true, c_addr + 3 * LINE, 8 * LINE);
        }
        let h = self.h_next[dist] % self.cap;
        self.h_next[dist] += 1;
        row(e, true, self.a_h + (dist * self.cap + h) as u64 * HISTORY_BYTES, LINE);
    }

    fn order_status(&mut self, t: usize, e: &mut Emitter) {
        let (w, d) = self.home[t];
        let dist = w * DISTRICTS + d;
        let c = self.pick_customer(t, dist, e);
        row(e, false, self.customer_addr(dist, c), 2 * LINE);
        let o_id = self.c_last_order[dist * self.params.customers_per_district + c];
        let s = self.slot(dist, o_id);
        e.read(3, self.a_o + s as u64 * ORDER_BYTES, 8);
        for l in 0..self.o_ol_cnt[s] as usize {
            e.read(3, self.a_ol + (s * MAX_LINES + l) as u64 * ORDER_LINE_BYTES, 8);
        }
    }

    fn delivery(&mut self, t: usize, e: &mut Emitter) {
        let (w, _) = self.home[t];
        for d in 0..DISTRICTS {
            let dist = w * DISTRICTS + d;
            if self.d_oldest_new[dist] == self.d_next_o_id[dist] {
                continue;
            }
            let o_id = self.d_oldest_new[dist];
            self.d_oldest_new[dist] += 1;
            self.delivered += 1;
            let s = self.slot(dist, o_id);
            e.read(3, self.a_no + s as u64 * NEW_ORDER_BYTES, 8);
            e.write(4, self.a_no + s as u64 * NEW_ORDER_BYTES, 8);
            e.read(3, self.a_o + s as u64 * ORDER_BYTES, 8);
            e.write(4, self.a_o + s as u64 * ORDER_BYTES, 8);
            for l in 0..self.o_ol_cnt[s] as usize {
                let at = self.a_ol + (s * MAX_LINES + l) as u64 * ORDER_LINE_BYTES;
                e.read(3, at, 8);
                e.flops(1);
                e.write(4, at, 8);
            }
            let c = self.o_c_id[s] as usize;
            let c_addr = self.customer_addr(dist, c);
            row(e, false, c_addr, 2 * LINE);
            self.c_balance[dist * self.params.customers_per_district + c] += self.o_amount[s];
            e.flops(1);
            e.write(4, c_addr + LINE, 8);
        }
    }

    fn stock_level(&mut self, t: usize, e: &mut Emitter) {
        let (w, d) = self.home[t];
        let dist = w * DISTRICTS + d;
        let threshold = self.rngs[t].gen_range(10..=20u16);
        row(e, false, self.a_d + dist as u64 * DISTRICT_BYTES, LINE);
        let next = self.d_next_o_id[dist];
        self.seen.clear();
        for o_id in next.saturating_sub(20)..next {
            let s = self.slot(dist, o_id);
            for l in 0..self.o_ol_cnt[s] as usize {
                let k = s * MAX_LINES + l;
                e.read(3, self.a_ol + k as u64 * ORDER_LINE_BYTES, 8);
                let item = self.ol_item[k];
                let si = w * self.params.items + item as usize;
                e.read(3, self.a_s + si as u64 * STOCK_BYTES, 8);
                if self.stock_qty[si] < threshold && !self.seen.contains(&item) {
                    self.seen.push(item);
                    self.low_stock += 1;
                }
            }
        }
    }

    /// Load unit `u` = district (w, d).
    fn load(&mut self, u: usize, e: &mut Emitter) {
        let (w, d) = (u / DISTRICTS, u % DISTRICTS);
        let cpd = self.params.customers_per_district;
        let units = self.params.warehouses * DISTRICTS;
        if d == 0 {
            row(e, true, self.a_w + w as u64 * WAREHOUSE_BYTES, WAREHOUSE_BYTES);
        }
        row(e, true, self.a_d + u as u64 * DISTRICT_BYTES, DISTRICT_BYTES);
        row(e, true, self.customer_addr(u, 0), cpd as u64 * CUSTOMER_BYTES);
        row(
            e,
            true,
            self.a_name + (u * cpd) as u64 * NAME_ENTRY_BYTES,
            cpd as u64 * NAME_ENTRY_BYTES,
        );
        let items = crate::npb::static_range(self.params.items, units, u);
        row(
            e,
            true,
            self.a_i + items.start as u64 * ITEM_BYTES,
            items.len() as u64 * ITEM_BYTES,
        );
        let stock = crate::npb::static_range(self.params.items, DISTRICTS, d);
        row(
            e,
            true,
            self.a_s + (w * self.params.items + stock.start) as u64 * STOCK_BYTES,
            stock.len() as u64 * STOCK_BYTES,
        );
        for o in 0..cpd {
            let s = self.slot(u, o);
            e.write(4, self.a_o + s as u64 * ORDER_BYTES, 8);
            for l in 0..self.o_ol_cnt[s] as usize {
                e.write(4, self.a_ol + (s * MAX_LINES + l) as u64 * ORDER_LINE_BYTES, 8);
            }
            if o >= cpd * 7 / 10 {
                e.write(4, self.a_no + s as u64 * NEW_ORDER_BYTES, 8);
            }
        }
    }
}

impl Kernel for Tpcc {
    fn next_loop(&mut self) -> Option<Loop> {
        self.step += 1;
        match self.step {
            1 => Some(Loop {
                items: self.params.warehouses * DISTRICTS,
                sched: Sched::Static,
            }),
            2 => Some(Loop {
                items: self.params.threads * self.params.transactions_per_thread,
                sched: Sched::Static,
            }),
            _ => None,
        }
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        for item in lo..hi {
            if self.step == 1 {
                self.load(item, e);
                continue;
            }
            e.compute(TXN_INSTRUCTIONS);
            let pick = self.rngs[t].gen_range(0..100);
            let txn = match pick {
                0..45 => Txn::NewOrder,
                45..88 => Txn::Payment,
                88..92 => Txn::OrderStatus,
                92..96 => Txn::Delivery,
                _ => Txn::StockLevel,
            };
            self.counts[txn as usize] += 1;
            match txn {
                Txn::NewOrder => self.new_order(t, e),
                Txn::Payment => self.payment(t, e),
                Txn::OrderStatus => self.order_status(t, e),
                Txn::Delivery => self.delivery(t, e),
                Txn::StockLevel => self.stock_level(t, e),
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "tpcc", "seed": self.seed, "params": self.params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, via};

    const SMALL: &str =
        "threads = 4\nwarehouses = 2\ncustomers_per_district = 60\nitems = 500\ntransactions_per_thread = 400";

    fn run(text: &str, seed: u64) -> OmpSource<Tpcc> {
        let p: TpccParams = parse(toml::from_str(text).unwrap()).unwrap();
        let threads = p.threads;
        let mut src = OmpSource::new(Tpcc::new(p, seed).unwrap(), threads);
        src.run_to_end();
        src
    }

    #[test]
    fn deterministic_and_monotonic() {
        check_generator(via(build), SMALL);
    }

    #[test]
    fn mix_and_table_invariants() {
        let src = run(SMALL, 3);
        let k = src.kernel();
        let total: u64 = k.counts.iter().sum();
        assert_eq!(total, 1600);
        let share = |i: usize| k.counts[i] as f64 / total as f64;
        assert!((share(0) - 0.45).abs() < 0.05, "{:?}", k.counts);
        assert!((share(1) - 0.43).abs() < 0.05, "{:?}", k.counts);
        // Consistency condition 1: W_YTD = sum(D_YTD) (both started consistent: 10·30000 = 300000).
        let (w, d) = k.ytd_sums();
        assert!((w - d).abs() < 1e-6 * w, "{w} {d}");
        // Every new-order added one order; every delivery removed the oldest undelivered one.
        let new_orders: usize = (0..20).map(|x| k.d_next_o_id[x] - 60).sum();
        assert_eq!(new_orders as u64, k.counts[0]);
        let undelivered: usize = (0..20).map(|x| k.undelivered(x)).sum();
        assert_eq!(undelivered as u64 + k.delivered, 20 * 18 + k.counts[0]);
        assert!(k.delivered > 0);
        // Stock quantities stay in TPC-C's range.
        assert!(k.stock_qty.iter().all(|&q| (1..=100).contains(&q)));
    }

    #[test]
    fn threads_share_their_home_warehouse_more_than_others() {
        let all = check_generator(via(build), SMALL);
        let src = run(SMALL, 1);
        let k = src.kernel();
        // Stock rows of warehouse 1 are touched (after loading) mostly by threads 2 and 3.
        let stock1 = k.a_s + (k.params.items as u64) * STOCK_BYTES..k.a_s + 2 * k.params.items as u64 * STOCK_BYTES;
        let count = |t: usize| {
            all[t]
                .iter()
                .filter(|a| stock1.contains(&a.vaddr) && !a.is_write())
                .count()
        };
        assert!(
            count(2) + count(3) > 10 * (count(0) + count(1)).max(1),
            "{} {} {} {}",
            count(0),
            count(1),
            count(2),
            count(3)
        );
        assert_eq!(k.home, vec![(0, 0), (0, 1), (1, 0), (1, 1)]);
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |t: &str| build(toml::from_str(t).unwrap(), 1).err().unwrap().key;
        assert_eq!(bad("warehouses = 0"), "warehouses");
        assert_eq!(bad("items = 5"), "items");
        assert_eq!(bad("customers_per_district = 10"), "customers_per_district");
    }
}
