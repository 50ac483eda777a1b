//! What the spec's names mean, in the words the explorer uses.

pub fn owner_doc(own: &str) -> &'static str {
    match own {
        "free" => "free: nobody's entry",
        "written" => "written: stored, not yet published (producer's)",
        "published" => "published: the consumer's to load",
        "read" => "read: loaded, not yet handed back",
        "clobbered" => "clobbered: an unread entry was overwritten",
        _ => "unknown owner",
    }
}

pub fn var_doc(name: &str) -> &'static str {
    match name {
        "prod" => "ring->producer: the shared producer counter",
        "cons" => "ring->consumer: the shared consumer counter",
        "slot" => "slot[s]: the position whose entry slot s holds",
        "own" => "own[s]: whose slot s is",
        "pProd" => "producer's cached_prod: next position to reserve",
        "pCons" => "producer's cached_cons (a user producer keeps it plus the ring size)",
        "pWr" => "producer: next reserved position not yet stored",
        "pAhead" => "without barrier A: an entry stored before its reservation",
        "cProd" => "consumer's cached_prod",
        "cCons" => "consumer's cached_cons (user side: end of its peeks)",
        "cRd" => "consumer: next peeked position not yet loaded",
        "cEnd" => "consumer: end of the peeked positions",
        "cValid" => "consumer: valid entries loaded since the last release",
        "cSpec" => "without barrier C: an entry loaded before ->producer",
        "cExp" => "ghost: the position FIFO order expects loaded next",
        "last" => "history: the consumer's last load",
        _ => "",
    }
}

/// What an invariant or property protects: the comment over its
/// definition in specs/*.tla (the paragraph it sits in, so a comment over
/// its helpers counts), else the short words below.
pub fn invariant_text(name: &str) -> String {
    static SPECS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let specs = SPECS.get_or_init(|| {
        let dir = ringlab_tlc::specs_dir();
        let mut files: Vec<_> = std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "tla")).collect()).unwrap_or_default();
        files.sort();
        files.iter().filter_map(|f| std::fs::read_to_string(f).ok()).collect()
    });
    specs.iter().find_map(|text| spec_comment(text, name)).unwrap_or_else(|| invariant_doc(name).to_string())
}

/// The comment of the paragraph that defines `name` in `text`.
pub fn spec_comment(text: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let def = lines.iter().position(|l| {
        l.strip_prefix(name).is_some_and(|rest| {
            let rest = rest.trim_start();
            rest.starts_with("==") || (rest.starts_with('(') && rest.contains("=="))
        })
    })?;
    let mut block = Vec::new();
    for l in lines[..def].iter().rev() {
        let t = l.trim();
        if t.is_empty() {
            break;
        }
        match t.strip_prefix("\\*") {
            Some(c) => block.push(c.trim()),
            None if !block.is_empty() => break,
            None => {}
        }
    }
    block.reverse();
    (!block.is_empty()).then(|| block.join(" "))
}

pub fn invariant_doc(name: &str) -> &'static str {
    match name {
        "IndicesAreU32" => "every counter stays a u32",
        "CachedNotAhead" => "a cached copy of the other side's counter lags the truth, never leads",
        "InFlightBounded" => "published and reserved entries never exceed the size",
        "NoOverwrite" => "the producer never overwrites an entry nobody loaded",
        "ReadsPublished" => "the consumer loads only published entries, and the entry stored for that position",
        "FifoOrder" => "positions are loaded in order, each once",
        "EveryEntryConsumed" => "every published entry is eventually consumed and handed back",
        _ => "",
    }
}
