"""Strings of sharing a playground run: trace download and upload, the HTML report, the share link.
{key: (en, zh)}; templates use str.format fields."""
STRINGS: dict[str, tuple[str, str]] = {
    # downloads
    "sh_download_json": ("Download trace (JSON)", "下载运行记录（JSON）"),
    "sh_download_json_help": ("Everything this run recorded (settings, steps, tokens, timings, memory, KV numbers, "
                              "captured attention). Load it again below to replay it without a model.",
                              "本次运行记录的全部内容（设置、每一步、token、时延、内存、KV 数据、捕获的注意力）。"
                              "之后可在下方重新载入，无需模型即可回放。"),
    "sh_download_html": ("Download report (HTML)", "下载报告（HTML）"),
    "sh_download_html_help": ("One self-contained web page: settings, numbers, the charts and a token replay. "
                              "It opens offline in any browser.",
                              "一个自包含的网页：设置、指标、图表和 token 回放，离线即可在任何浏览器中打开。"),
    # upload
    "sh_upload_header": ("Load a saved trace (JSON)", "载入已保存的运行记录（JSON）"),
    "sh_upload_label": ("Trace file, saved with “Download trace (JSON)”", "运行记录文件（用“下载运行记录（JSON）”保存）"),
    "sh_upload_help": ("The run is shown below, with its replay and charts, without running any model.",
                       "运行结果会显示在下方（含回放与图表），不会运行任何模型。"),
    "sh_loaded": ("Showing the trace loaded from **{file}** ({model}). No model was run: this is what was "
                  "recorded. Press Run to replace it with a new run.",
                  "正在显示从 **{file}** 载入的运行记录（{model}）。没有运行任何模型：这是当时记录的内容。"
                  "点击运行即可用新的运行替换它。"),
    "sh_load_failed": ("Could not load {file}. {msg}", "无法载入 {file}。{msg}"),
    # share link
    "sh_link_button": ("Copy share link", "复制分享链接"),
    "sh_link_help": ("Show a link that opens the playground with this prompt and these settings.",
                     "显示一个链接：打开后会带着这段提示词和这些设置进入演练场。"),
    "sh_link_hide": ("Hide link", "隐藏链接"),
    "sh_link_explain": ("Opening this link fills in the prompt and these settings: model (unless it is a local "
                        "folder), dtype, chat template, max_new_tokens, sampling, seed, attention backend and KV "
                        "cache. The run itself is not in the link: press Run, or share the trace file.",
                        "打开此链接会填入提示词和这些设置：模型（本地文件夹除外）、数据类型、对话模板、"
                        "max_new_tokens、采样、随机种子、注意力后端和 KV 缓存。链接中不包含运行结果："
                        "请点击运行，或分享运行记录文件。"),
    "sh_link_copy_hint": ("Point at the box: its copy button appears at the top right.",
                          "把鼠标移到框上：右上角会出现复制按钮。"),
    "sh_link_local_model": ("The model is a local folder, which others cannot open: the link leaves it out.",
                            "当前模型是本地文件夹，别人无法打开：链接中不包含模型。"),
    "sh_link_too_long": ("The prompt is too long for a link ({n} characters, at most {max}): the link leaves it "
                         "out. Share the trace file instead.",
                         "提示词太长，无法放进链接（{n} 个字符，最多 {max}）：链接中不包含提示词。请改为分享运行记录文件。"),
    "sh_link_applied": ("Filled in from the shared link: {names}.", "已按分享链接填入：{names}。"),
    "sh_link_ignored": ("Ignored in the shared link: {items}.", "分享链接中被忽略的参数：{items}。"),
    "sh_bad_int": ("not a whole number from {lo} to {hi}", "不是 {lo} 到 {hi} 之间的整数"),
    "sh_bad_float": ("not a number from {lo} to {hi}", "不是 {lo} 到 {hi} 之间的数"),
    "sh_bad_choice": ("not one of {choices}", "不是 {choices} 之一"),
    "sh_bad_bool": ("not 1 or 0", "不是 1 或 0"),
    "sh_bad_model": ("not 'bundled' or a hub id of the form org/name", "不是 'bundled' 或 org/name 形式的 Hub id"),
    "sh_bad_text": ("longer than {max} characters", "超过 {max} 个字符"),
    "sh_unknown_param": ("not a setting the link can carry", "不是链接可以携带的设置"),
    "sh_clamped": ("max_new_tokens {n} is more than this model's context; set to {max}",
                   "max_new_tokens {n} 超过了本模型的上下文，已设为 {max}"),
    # the HTML report
    "rp_title": ("Prefill/decode lab: run report", "预填充与解码实验室：运行报告"),
    "rp_intro": ("One run of {model}, saved {created}. Everything here was measured on that run; this file "
                 "needs no network and no model.",
                 "{model} 的一次运行，保存于 {created}。这里的所有数字都来自那次运行的测量；此文件无需网络，也无需模型。"),
    "rp_model": ("Model", "模型"),
    "rp_settings": ("Settings", "设置"),
    "rp_numbers": ("Numbers", "指标"),
    "rp_output": ("Generated text", "生成的文本"),
    "rp_replay": ("Token replay", "Token 回放"),
    "rp_replay_help": ("Drag the slider or press Play: the prompt's tokens light up together in the prefill step, "
                       "then each decode step adds one token.",
                       "拖动滑块或点击播放：提示词的 token 在预填充步中同时点亮，之后每个解码步增加一个 token。"),
    "rp_play": ("Play", "播放"),
    "rp_charts": ("Charts", "图表"),
    "rp_no_heatmap": ("No attention heatmap: this run did not capture attention probabilities (only the eager "
                      "backend materialises them).",
                      "没有注意力热力图：本次运行没有捕获注意力概率（只有 eager 后端会显式计算它们）。"),
    "rp_on": ("on", "开"),
    "rp_off": ("off", "关"),
    "rp_prompt_tokens": ("prompt tokens", "提示词 token 数"),
    "rp_output_tokens": ("generated tokens", "生成的 token 数"),
    "rp_steps": ("engine steps", "引擎步数"),
    "rp_footer": ("Made by the prefill/decode lab. Charts: Plotly, embedded in this file.",
                  "由预填充与解码实验室生成。图表：Plotly，已内嵌在此文件中。"),
}
