// SPDX-License-Identifier: GPL-2.0

//! Rust rosebush sample: a [`Map`] from names to values.
//!
//! On load it stores [`ENTRIES`] names, looks each of them up under RCU along with as many names
//! it never stored, replaces some values, removes every other name, and prints what it found and
//! the shape of the rosebush. Then it measures the throughput of one and two writers while a
//! reader runs. The rest is freed on unload.

use core::{
    fmt::{self, Write},
    sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering},
};
use kernel::{
    new_condvar, new_mutex, new_work,
    prelude::*,
    rosebush::{new_map, Map},
    sync::{rcu, Arc, CondVar, Mutex},
    time::Ktime,
    workqueue::{self, impl_has_work, Work, WorkItem},
};

module! {
    type: RustRosebush,
    name: "rust_rosebush",
    author: "Rosebush developers",
    description: "Rust rosebush sample",
    license: "GPL",
}

/// The number of names the sample stores.
///
/// The `module!` macro of this kernel takes no parameters, so the number is fixed.
const ENTRIES: u32 = 2000;

/// A name of up to 24 bytes, made without allocating so that it can be made under RCU.
#[derive(PartialEq, Eq, Hash)]
struct Name {
    len: usize,
    bytes: [u8; 24],
}

impl Name {
    fn new(kind: &str, i: u32) -> Self {
        let mut name = Name {
            len: 0,
            bytes: [0; 24],
        };
        // Cannot fail: "absent-4294967295" fits.
        let _ = write!(name, "{kind}-{i}");
        name
    }
}

impl Write for Name {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        if end > self.bytes.len() {
            return Err(fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

struct RustRosebush {
    map: Pin<KBox<Map<Name, u64>>>,
}

impl kernel::Module for RustRosebush {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let n = ENTRIES;
        let map = KBox::pin_init(new_map!(), GFP_KERNEL)?;

        for i in 0..n {
            map.insert(Name::new("entry", i), u64::from(i) * 3)?;
        }
        pr_info!("inserted {} entries, map holds {}\n", n, map.len());

        let (mut found, mut absent_found) = (0, 0);
        {
            let guard = rcu::read_lock();
            for i in 0..n {
                if map.get(&Name::new("entry", i), &guard) == Some(&(u64::from(i) * 3)) {
                    found += 1;
                }
                if map.get(&Name::new("absent", i), &guard).is_some() {
                    absent_found += 1;
                }
            }
        }
        pr_info!("looked up {found} of {n} entries, {absent_found} of {n} absent names\n");

        let mut replaced = 0;
        for i in (0..n).step_by(10) {
            if map.insert(Name::new("entry", i), u64::from(i) * 5)? {
                replaced += 1;
            }
        }
        let mut removed = 0;
        for i in (0..n).step_by(2) {
            if map.remove(&Name::new("entry", i)) {
                removed += 1;
            }
        }
        pr_info!(
            "replaced {replaced} values, removed {removed} entries, map holds {}\n",
            map.len()
        );

        let stats = map.stats();
        pr_info!(
            "rosebush: {} entries, {} + {} buckets, {} table slots, {} bytes ({} per entry)\n",
            stats.entries,
            stats.buckets,
            stats.overflow_buckets,
            stats.table_slots,
            stats.bytes,
            stats.bytes / stats.entries.max(1)
        );
        pr_info!(
            "rosebush: {} grows, {} shrinks, {} splits, {} merges\n",
            stats.grows,
            stats.shrinks,
            stats.splits,
            stats.merges
        );
        for writers in 1..=2 {
            measure_writers(writers)?;
        }
        Ok(RustRosebush { map })
    }
}

/// Operations each writer of [`measure_writers`] makes in each phase.
const WRITER_OPS: u32 = 2000;

/// Lookups the reader of [`measure_writers`] makes each time it runs.
const READ_BATCH: u32 = 64;

/// What [`measure_writers`] shares with the tasks it starts.
#[pin_data]
struct Bench {
    #[pin]
    map: Map<u32, u64>,
    stop: AtomicBool,
    lookups: AtomicUsize,
    /// Where the reader's sequence of keys has got to.
    read_from: AtomicU32,
    /// The nanoseconds of each writer's insert, replace and remove phases, and how many tasks
    /// have finished.
    #[pin]
    results: Mutex<([[i64; 3]; 2], u32)>,
    #[pin]
    changed: CondVar,
    /// The reader, which queues itself again after each batch of lookups.
    #[pin]
    reader: Work<Bench>,
}

impl_has_work! {
    impl HasWork<Self> for Bench { self.reader }
}

impl WorkItem for Bench {
    type Pointer = Arc<Bench>;

    /// Looks up `READ_BATCH` keys under one RCU guard, then queues itself again until told to
    /// stop: the workqueue may then run other work, on any kernel, and its worker reschedules.
    fn run(this: Arc<Bench>) {
        if this.stop.load(Ordering::Acquire) {
            this.finished();
            return;
        }
        let mut i = this.read_from.load(Ordering::Relaxed);
        let guard = rcu::read_lock();
        for _ in 0..READ_BATCH {
            i = i.wrapping_add(0x9e37_79b9);
            let _ = this.map.get(&(((i & 1) << 24) | (i % WRITER_OPS)), &guard);
        }
        drop(guard);
        this.read_from.store(i, Ordering::Relaxed);
        this.lookups.fetch_add(READ_BATCH as usize, Ordering::Relaxed);
        // Cannot fail: a work item that runs is not queued.
        if let Err(this) = workqueue::system_unbound().enqueue(this) {
            this.finished();
        }
    }
}

impl Bench {
    /// Counts a task finished.
    fn finished(&self) {
        let mut results = self.results.lock();
        results.1 += 1;
        self.changed.notify_all();
    }

    /// Inserts, replaces and removes `WRITER_OPS` keys of its own, timing each phase; counts
    /// itself finished whatever happens.
    fn write(&self, id: usize) -> Result {
        let mut t = [Ktime::ktime_get(); 4];
        let result = self.write_phases(id, &mut t);
        let mut results = self.results.lock();
        if result.is_ok() {
            for phase in 0..3 {
                results.0[id][phase] = (t[phase + 1] - t[phase]).to_ns();
            }
        }
        results.1 += 1;
        self.changed.notify_all();
        result
    }

    fn write_phases(&self, id: usize, t: &mut [Ktime; 4]) -> Result {
        let base = (id as u32) << 24;
        for i in 0..WRITER_OPS {
            self.map.insert(base + i, u64::from(i))?;
        }
        t[1] = Ktime::ktime_get();
        for i in 0..WRITER_OPS {
            self.map.insert(base + i, u64::from(i) + 1)?;
        }
        t[2] = Ktime::ktime_get();
        for i in 0..WRITER_OPS {
            self.map.remove(&(base + i));
        }
        t[3] = Ktime::ktime_get();
        Ok(())
    }

    fn wait_finished(&self, tasks: u32) {
        let mut results = self.results.lock();
        while results.1 < tasks {
            self.changed.wait(&mut results);
        }
    }
}

/// Measures the throughput of `writers` writers of a map while a reader looks keys up.
fn measure_writers(writers: usize) -> Result {
    let bench = Arc::pin_init(
        pin_init!(Bench {
            map <- new_map!(),
            stop: AtomicBool::new(false),
            lookups: AtomicUsize::new(0),
            read_from: AtomicU32::new(0),
            results <- new_mutex!(([[0; 3]; 2], 0)),
            changed <- new_condvar!(),
            reader <- new_work!("Bench::reader"),
        }),
        GFP_KERNEL,
    )?;
    // Cannot fail: the work item is new.
    if workqueue::system_unbound().enqueue(bench.clone()).is_err() {
        return Err(EBUSY);
    }
    if writers > 1 {
        let second = bench.clone();
        let spawned = workqueue::system_unbound().try_spawn(GFP_KERNEL, move || {
            if second.write(1).is_err() {
                pr_err!("the second writer failed\n");
            }
        });
        if let Err(e) = spawned {
            // Only the reader runs: stop it before returning.
            bench.stop.store(true, Ordering::Release);
            bench.wait_finished(1);
            return Err(e.into());
        }
    }
    // Whatever happens, stop the reader and wait for every task before returning: they run
    // this module's code.
    let written = bench.write(0);
    bench.wait_finished(writers as u32);
    bench.stop.store(true, Ordering::Release);
    bench.wait_finished(writers as u32 + 1);
    written?;

    let results = bench.results.lock();
    let mut rate = [0u64; 3];
    for (phase, r) in rate.iter_mut().enumerate() {
        let longest = results.0[..writers]
            .iter()
            .map(|w| w[phase])
            .max()
            .unwrap_or(0);
        *r = (writers as u64 * u64::from(WRITER_OPS) * 1_000_000_000) / longest.max(1) as u64;
    }
    pr_info!(
        "writers: {writers} writer(s) and a reader, {WRITER_OPS} keys each: \
         insert {} ops/s, replace {} ops/s, remove {} ops/s ({} lookups)\n",
        rate[0],
        rate[1],
        rate[2],
        bench.lookups.load(Ordering::Relaxed)
    );
    Ok(())
}

impl Drop for RustRosebush {
    fn drop(&mut self) {
        pr_info!("unloading: freeing {} entries\n", self.map.len());
    }
}
