//! `skills`: list the skills of `agent/skills/`, or return one in full. The rules
//! come once, with `aitools --help`, never again with each skill.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, agent_docs, code};
use crate::workspace::Ctx;
use clap::Args;

#[derive(Args, Debug)]
pub struct SkillsArgs {
    /// The skill to show; omit to list every skill.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "skills",
    summary: "List the guides, or show one.",
    description: "Without NAME: skills as [{name, description}]. With NAME: {name, description, content}, content being the whole guide (the rules come with `aitools --help`).",
    args: <SkillsArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "skills",
            "Without NAME: [{name, description}]; `aitools skills <name>` shows one.",
        ),
        field("name", "With NAME: the skill."),
        field(
            "description",
            "With NAME: when and why to read it (its front matter).",
        ),
        field("content", "With NAME: the guide, Markdown."),
    ],
    error_codes: &[code::ARGUMENT_INVALID, code::NOT_FOUND],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(SkillsArgs, run),
};

pub fn run(_ctx: &Ctx, args: &SkillsArgs) -> Result<Output, CmdError> {
    let mut out = Json::obj();
    let Some(name) = &args.name else {
        out.push("skills", agent_docs::skills_json());
        return Ok(Output::from_json(out, false));
    };
    let Some(skill) = agent_docs::skill(name) else {
        let names: Vec<Json> = agent_docs::SKILLS
            .iter()
            .map(|s| Json::str(s.name))
            .collect();
        return Err(CmdError::new(
            code::NOT_FOUND,
            format!("There is no skill named {name:?}."),
            Repair::new(
                "skills",
                "List the skills with their descriptions.",
                "aitools skills",
            ),
        )
        .with_candidates(Json::Arr(names)));
    };
    out.push("name", Json::str(skill.name));
    out.push("description", Json::str(skill.description));
    out.push("content", Json::str(skill.content));
    Ok(Output::from_json(out, false))
}
