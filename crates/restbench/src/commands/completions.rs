//! `restbench completions SHELL` and `restbench man`: generated from the same clap definition
//! the parser uses, so they cannot drift from the commands.

use std::process::ExitCode;

use std::io::Write;

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

pub fn completions(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "restbench", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

/// The manual page: restbench(1) with every subcommand's options in one page.
pub fn man() -> anyhow::Result<ExitCode> {
    let cmd = Cli::command();
    let mut out = std::io::stdout().lock();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    // clap_mangen names a page per subcommand (`restbench-run(1)`); here they are sections below.
    let mut list = Vec::new();
    man.render_subcommands_section(&mut list)?;
    let mut list = String::from_utf8_lossy(&list).into_owned();
    for sub in cmd.get_subcommands() {
        list = list.replace(
            &format!("restbench\\-{}(1)", sub.get_name()),
            &format!("restbench {}", sub.get_name()),
        );
    }
    out.write_all(list.as_bytes())?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        render_subcommand(&mut out, sub, "restbench")?;
    }
    man.render_version_section(&mut out)?;
    Ok(ExitCode::SUCCESS)
}

/// One `.SH` section per subcommand (nested ones too), with its options and after-help text.
fn render_subcommand(
    out: &mut impl Write,
    sub: &clap::Command,
    parent: &str,
) -> std::io::Result<()> {
    let name = format!("{parent} {}", sub.get_name());
    let sub = sub.clone().bin_name(name.clone());
    let man = clap_mangen::Man::new(sub.clone());
    writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
    let mut body = Vec::new();
    man.render_synopsis_section(&mut body)?;
    man.render_description_section(&mut body)?;
    man.render_options_section(&mut body)?;
    man.render_extra_section(&mut body)?;
    // The per-command parts are subsections of restbench(1), not pages of their own.
    let text = String::from_utf8_lossy(&body)
        .replace(".SH EXTRA", ".SH NOTES")
        .replace(".SH ", ".SS ");
    out.write_all(text.as_bytes())?;
    for nested in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
        render_subcommand(out, nested, &name)?;
    }
    Ok(())
}
