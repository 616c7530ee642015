//! First-touch concentration of the SPLASH-2 generators (Zaourar et al. §4.3: Barnes and FMM
//! are "highly unbalanced" because one thread allocates and initialises the shared tree and
//! arrays): with the main thread initialising (`init = "serial"`, SPLASH-2's way) nearly every
//! page lands on its node and so does the demand traffic; when each thread initialises its own
//! bodies, pages spread over the boards.

use numasim::experiment::{simulate, Experiment, RunResults};
use numasim_config::Source;

fn run(workload: &str) -> RunResults {
    let text = format!(
        "machine = \"sunfire6800\"\nseed = 3\n[llc]\nenabled = false\n[placement]\npolicy = \"first-touch\"\n\
         [workload]\n{workload}\n"
    );
    let exp = Experiment::from_source(Source::from_text("t.toml", &text), "t").expect("valid experiment");
    simulate(&exp, &mut |_| {}).expect("simulation runs").1
}

fn max_share(map: &std::collections::BTreeMap<String, u64>) -> f64 {
    let total: u64 = map.values().sum();
    *map.values().max().unwrap() as f64 / total as f64
}

#[test]
fn barnes_and_fmm_serial_init_put_the_tree_on_one_board() {
    for w in [
        "kind = \"barnes\"\nthreads = 12\nbodies = 600\nsteps = 1",
        "kind = \"fmm\"\nthreads = 12\nparticles = 600\nsteps = 1\nbox_particles = 10",
    ] {
        let serial = run(&format!("{w}\ninit = \"serial\""));
        assert!(
            max_share(&serial.pages_per_node) > 0.9,
            "{w}: {:?}",
            serial.pages_per_node
        );
        assert!(max_share(&serial.totals.summary.by_node) > 0.9, "{w}");
        let parallel = run(&format!("{w}\ninit = \"parallel\""));
        assert!(
            max_share(&parallel.pages_per_node) < max_share(&serial.pages_per_node),
            "{w}: {:?}",
            parallel.pages_per_node
        );
    }
}

#[test]
fn water_and_fft_serial_init_concentrate_their_shared_arrays() {
    for w in [
        "kind = \"water-nsq\"\nthreads = 12\nmolecules = 96\nsteps = 1",
        "kind = \"fft\"\nthreads = 12\nm = 12",
    ] {
        let serial = run(&format!("{w}\ninit = \"serial\""));
        let parallel = run(&format!("{w}\ninit = \"parallel\""));
        assert!(
            max_share(&serial.pages_per_node) > 0.6,
            "{w}: {:?}",
            serial.pages_per_node
        );
        assert!(
            max_share(&parallel.pages_per_node) < max_share(&serial.pages_per_node),
            "{w}"
        );
    }
}
