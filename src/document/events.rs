//! What an engine tells as it reads: each warning as it happens, and, when
//! the link report is asked for, each URL value once its place is known.
//! The engine queues them; its caller takes them when it likes (after each
//! write, to print them at once; at the end, to tell them in its documents'
//! order). One queue, made by the engine, so that no source builds its own.

use std::cell::RefCell;
use std::rc::Rc;

use super::links::{Hear, Link, Only};
use super::memory::{Allowance, Budget};
use super::report::{Tell, Warning};

/// The events of one document, queued by its rewriter until taken: a
/// handle (cloned cheaply), which outlives the rewriter, so that what its
/// [`end`](crate::Rewriter::end) heard can be taken after it.
///
/// `W` is the warning of the document's source: [`Warning`] for a
/// document, [`ResponseWarning`](crate::source::http::ResponseWarning) for
/// an HTTP response.
///
/// ```
/// use htmlabs::{Config, Layers, Rewriter, Standard, Type};
///
/// let layers = Layers::default().with_retrieval(Standard::Rfc1808, "http://h/a/", "-r")?;
/// let mut rewriter = Rewriter::new(Type::Html, Config::default(), layers, Vec::new()).with_links();
/// let events = rewriter.events();
/// rewriter.write(b"<a href=b.html>")?;
/// rewriter.end()?;
/// let links = events.take_links();
/// assert_eq!(links[0].absolute.as_deref(), Some("http://h/a/b.html"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Events<W = Warning>(Rc<RefCell<Queue<W>>>);

struct Queue<W> {
    warnings: Vec<W>,
    links: Vec<Link>,
    /// What the links queued take from the document's allowance, when it
    /// has one: past it the rest are not kept, and the document is over
    /// its share (as any holder past it).
    budget: Option<(Rc<Allowance>, Budget)>,
    over: bool,
    /// The links a sieve let pass: told by their URL alone, not queued.
    passed: usize,
}

impl<W> Clone for Events<W> {
    fn clone(&self) -> Self {
        Events(Rc::clone(&self.0))
    }
}

impl<W> Default for Events<W> {
    fn default() -> Self {
        Events(Rc::new(RefCell::new(Queue {
            warnings: Vec::new(),
            links: Vec::new(),
            budget: None,
            over: false,
            passed: 0,
        })))
    }
}

impl<W: 'static> Events<W> {
    /// The warnings told since they were last taken.
    pub fn take_warnings(&self) -> Vec<W> {
        std::mem::take(&mut self.0.borrow_mut().warnings)
    }

    /// The links heard since they were last taken.
    pub fn take_links(&self) -> Vec<Link> {
        self.take_held().0
    }

    /// Whether a link did not fit the document's share of the run's
    /// memory (`--max-memory`), and was not kept.
    pub fn over(&self) -> bool {
        self.0.borrow().over
    }

    /// Queues `warning`.
    pub(crate) fn warn(&self, warning: W) {
        self.0.borrow_mut().warnings.push(warning);
    }

    /// Queues `link`, taken from the allowance when there is one.
    pub(crate) fn hear(&self, link: Link) {
        let queue = &mut *self.0.borrow_mut();
        if let Some((_, budget)) = &mut queue.budget {
            queue.over = queue.over || budget.take(link.size()).is_err();
        }
        if !queue.over {
            queue.links.push(link);
        }
    }

    /// The links queued from now on are taken from `allowance`.
    pub(crate) fn charge(&self, allowance: &Rc<Allowance>) {
        self.0.borrow_mut().budget = Some((Rc::clone(allowance), allowance.budget()));
    }

    /// What queues each link heard.
    pub(crate) fn hearer(&self) -> Hear {
        let events = self.clone();
        Box::new(move |link: Link| events.hear(link))
    }

    /// What keeps from the queue each link `only` does not want: counted
    /// (as a link heard is queued: not past the share), not queued.
    pub(crate) fn sieve(&self, mut only: impl FnMut(&str) -> bool + 'static) -> Only {
        let events = self.clone();
        Box::new(move |absolute: &str| {
            let wanted = only(absolute);
            if !wanted {
                let queue = &mut *events.0.borrow_mut();
                if !queue.over {
                    queue.passed += 1;
                }
            }
            wanted
        })
    }

    /// How many links the sieve let pass.
    pub(crate) fn passed(&self) -> usize {
        self.0.borrow().passed
    }

    /// Queues `links` that another queue of the same document held, with
    /// what they took (`held`, from the same allowance).
    pub(crate) fn keep(&self, (links, held): (Vec<Link>, Budget)) {
        let queue = &mut *self.0.borrow_mut();
        queue.links.extend(links);
        match &mut queue.budget {
            Some((_, budget)) => budget.absorb(held),
            None => drop(held),
        }
    }

    /// Changes the links queued (what they take stays as it was taken).
    pub(crate) fn edit(&self, f: impl FnOnce(&mut Vec<Link>)) {
        f(&mut self.0.borrow_mut().links);
    }

    /// How many of the links queued are `which`.
    pub(crate) fn count(&self, which: impl Fn(&Link) -> bool) -> usize {
        self.0.borrow().links.iter().filter(|l| which(l)).count()
    }

    /// The links queued, and what they took (given back when dropped).
    pub(crate) fn take_held(&self) -> (Vec<Link>, Budget) {
        let queue = &mut *self.0.borrow_mut();
        let held = match &mut queue.budget {
            Some((allowance, budget)) => std::mem::replace(budget, allowance.budget()),
            None => Budget::new(0),
        };
        (std::mem::take(&mut queue.links), held)
    }
}

impl Events<Warning> {
    /// What queues each warning told.
    pub(crate) fn teller(&self) -> Tell {
        let events = self.clone();
        Box::new(move |warning: &Warning| events.warn(warning.clone()))
    }
}
