//! Generator shards as a Kubernetes Indexed Job, and their results collected back: the way a
//! cluster already runs N copies of one command, with no operator or daemon of restbench's.
//!
//! The manifest is JSON (kubectl takes JSON manifests as it takes YAML; JSON is YAML too). Each
//! pod runs `restbench load --shard $(JOB_COMPLETION_INDEX)/N --start-at T --json - …`: the Job
//! controller sets `JOB_COMPLETION_INDEX` in every pod of an Indexed Job and Kubernetes expands
//! `$(VAR)` in container args. `collect` reads each pod's log through `kubectl logs` and takes
//! the result document out of it (stderr's text report is in the same log).

use std::process::Command;

use restbench_loadgen::{LoadSpec, StopAt};
use restbench_model::{LoadResult, Shard};
use serde_json::{Value, json};

use crate::RemoteError;
use crate::shards::load_args;

/// The label Kubernetes puts on every pod of a Job.
pub const JOB_NAME_LABEL: &str = "batch.kubernetes.io/job-name";

/// What `restbench k8s load` prints a Job for.
#[derive(Debug, Clone)]
pub struct JobSpec {
    pub name: String,
    pub namespace: Option<String>,
    pub image: String,
    pub shards: u32,
    /// When every pod starts loading, Unix milliseconds.
    pub start_at_ms: u64,
}

/// Every pod's share of `spec`: the same on each, so the totals must divide evenly.
pub fn pod_spec(spec: &LoadSpec, shards: u32) -> Result<LoadSpec, RemoteError> {
    let n = shards.max(1);
    let mut s = spec.clone();
    if !spec.connections.is_multiple_of(n) {
        return Err(RemoteError::Shape(format!(
            "-c {} does not split evenly over {n} pods (every pod runs the same command): give a \
             multiple of {n}",
            spec.connections
        )));
    }
    s.connections = spec.connections / n;
    s.threads = spec.threads.min(s.connections).max(1);
    if let StopAt::Requests(total) = spec.stop {
        if !total.is_multiple_of(u64::from(n)) {
            return Err(RemoteError::Shape(format!(
                "-n {total} does not split evenly over {n} pods: give a multiple of {n}"
            )));
        }
        s.stop = StopAt::Requests(total / u64::from(n));
    }
    s.rate = spec.rate.map(|r| r / f64::from(n));
    Ok(s)
}

/// The Indexed Job (batch/v1) whose `shards` pods each run one shard of `spec`.
pub fn job_manifest(spec: &LoadSpec, job: &JobSpec) -> Result<Value, RemoteError> {
    let n = job.shards;
    if n == 0 {
        return Err(RemoteError::Shape("--shards must be at least 1".into()));
    }
    let pod = pod_spec(spec, n)?;
    let mut args = load_args(&pod, Shard { index: 0, count: n }, job.start_at_ms)?;
    // Pods have no stdin to watch, and each takes its index from the Job controller.
    args.retain(|a| a != "--exit-with-stdin");
    if let Some(i) = args.iter().position(|a| a == "--shard") {
        args[i + 1] = format!("$(JOB_COMPLETION_INDEX)/{n}");
    }
    let labels =
        json!({ "app.kubernetes.io/name": "restbench", "app.kubernetes.io/component": "loadgen" });
    let mut metadata = json!({ "name": job.name, "labels": labels });
    if let Some(ns) = &job.namespace {
        metadata["namespace"] = json!(ns);
    }
    Ok(json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": {
            "completionMode": "Indexed",
            "completions": n,
            "parallelism": n,
            "backoffLimit": 0,
            "template": {
                "metadata": { "labels": labels },
                "spec": {
                    "restartPolicy": "Never",
                    // One generator per node where the cluster allows it: two on one node
                    // would share its CPUs.
                    "affinity": { "podAntiAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [{
                            "weight": 100,
                            "podAffinityTerm": {
                                "topologyKey": "kubernetes.io/hostname",
                                "labelSelector": { "matchLabels": { JOB_NAME_LABEL: job.name } }
                            }
                        }]
                    }},
                    "containers": [{
                        "name": "restbench",
                        "image": job.image,
                        "command": ["restbench"],
                        "args": args,
                    }]
                }
            }
        }
    }))
}

/// The result document inside a pod's log: from the line `{` to the last line `}` (the
/// document is printed pretty; the text report on stderr has no such lines).
pub fn document_in_log(log: &str) -> Option<&str> {
    let start = log
        .find("\n{\n")
        .map(|i| i + 1)
        .or_else(|| log.starts_with("{\n").then_some(0))?;
    let end = log.rfind("\n}").map(|i| i + 2)?;
    (end > start).then(|| &log[start..end])
}

/// Each pod of `job` (by its completion index) with its result, through `kubectl`.
pub fn collect(
    job: &str,
    namespace: Option<&str>,
) -> Result<Vec<(String, LoadResult)>, RemoteError> {
    let kubectl = |args: &[&str]| -> Result<String, RemoteError> {
        let mut c = Command::new("kubectl");
        if let Some(ns) = namespace {
            c.args(["--namespace", ns]);
        }
        let out = c
            .args(args)
            .output()
            .map_err(|e| RemoteError::io("cannot run kubectl (is it installed and on PATH?)", e))?;
        if !out.status.success() {
            return Err(RemoteError::Command {
                host: "kubectl".into(),
                what: format!("kubectl {}", args.join(" ")),
                detail: crate::ssh::last_line(&String::from_utf8_lossy(&out.stderr))
                    .unwrap_or_else(|| format!("exit {}", out.status)),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let selector = format!("{JOB_NAME_LABEL}={job}");
    let list: Value =
        serde_json::from_str(&kubectl(&["get", "pods", "-l", &selector, "-o", "json"])?).map_err(
            |e| RemoteError::Shape(format!("kubectl get pods printed no pod list: {e}")),
        )?;
    let mut pods: Vec<(u64, String)> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let name = p["metadata"]["name"].as_str()?.to_string();
            let index = p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
                .as_str()
                .and_then(|i| i.parse().ok())
                .unwrap_or(u64::MAX);
            Some((index, name))
        })
        .collect();
    if pods.is_empty() {
        return Err(RemoteError::Shape(format!(
            "no pod has the label {selector}: is the job name right (kubectl get jobs)?"
        )));
    }
    pods.sort();
    let mut out = Vec::with_capacity(pods.len());
    for (_, pod) in pods {
        let log = kubectl(&["logs", &pod])?;
        let doc = document_in_log(&log).ok_or_else(|| {
            RemoteError::Shape(format!(
                "the log of pod {pod} holds no load result (still running, or it failed: \
                 kubectl logs {pod})"
            ))
        })?;
        let result: LoadResult = serde_json::from_str(doc).map_err(|e| {
            RemoteError::Shape(format!(
                "the result in the log of pod {pod} is unreadable: {e}"
            ))
        })?;
        out.push((pod, result));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_loadgen::Target;
    use std::time::Duration;

    #[test]
    fn the_job_is_indexed_with_one_shard_per_pod() {
        let mut spec = LoadSpec::get(Target::parse("http://api.bench.svc:8080/plaintext").unwrap());
        spec.connections = 64;
        spec.threads = 4;
        spec.stop = StopAt::Duration(Duration::from_secs(30));
        let job = JobSpec {
            name: "rb-1".into(),
            namespace: Some("bench".into()),
            image: "registry.example/restbench:1".into(),
            shards: 4,
            start_at_ms: 1_800_000_000_000,
        };
        let text = serde_json::to_string_pretty(&job_manifest(&spec, &job).unwrap()).unwrap();
        let m: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(m["apiVersion"], "batch/v1");
        assert_eq!(m["kind"], "Job");
        assert_eq!(m["metadata"]["namespace"], "bench");
        let s = &m["spec"];
        assert_eq!(s["completionMode"], "Indexed");
        assert_eq!(
            (s["completions"].as_u64(), s["parallelism"].as_u64()),
            (Some(4), Some(4))
        );
        let c = &s["template"]["spec"]["containers"][0];
        assert_eq!(c["image"], "registry.example/restbench:1");
        assert_eq!(c["command"][0], "restbench");
        let args: Vec<&str> = c["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let joined = args.join(" ");
        assert!(joined.starts_with("load -c 16 -t 4 -d 30000ms"), "{joined}");
        assert!(
            joined.contains("--json - --shard $(JOB_COMPLETION_INDEX)/4 --start-at 1800000000000"),
            "{joined}"
        );
        assert!(!joined.contains("--exit-with-stdin"), "{joined}");
        assert_eq!(args.last(), Some(&"http://api.bench.svc:8080/plaintext"));
        assert_eq!(s["template"]["spec"]["restartPolicy"], "Never");
        spec.connections = 10;
        let err = job_manifest(&spec, &job).unwrap_err().to_string();
        assert!(err.contains("does not split evenly over 4 pods"), "{err}");
    }

    #[test]
    fn the_document_is_found_in_a_log_with_the_text_report() {
        let log = "waiting until … to start\nRunning 2s test @ http://x/\n{\n  \"a\": {\n    \"b\": 1\n  }\n}\n";
        assert_eq!(
            document_in_log(log),
            Some("{\n  \"a\": {\n    \"b\": 1\n  }\n}")
        );
        assert_eq!(document_in_log("{\n}\n"), Some("{\n}"));
        assert_eq!(document_in_log("error: cannot connect\n"), None);
    }
}
