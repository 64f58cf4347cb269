"""Chat templates of the eleven judge architectures, as their Hub repos have them.

For Qwen3-VL, Llama 3.2 Vision and Mistral 3 the branches for tools are left out (a judge never
sends tools) and long default system texts are shortened; what a judge's single user turn
renders to is unchanged. PaliGemma ships none: ``PALIGEMMA_TEMPLATE`` is the fallback the
README documents.
"""

_QWEN25_VL = (  # Qwen/Qwen2.5-VL-7B-Instruct
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n{% if message['content'] is string %}"
    "{{ message['content'] }}<|im_end|>\n{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}{% if add_vision_id %}"
    "Picture {{ image_count.value }}: {% endif %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}{% if add_vision_id %}"
    "Video {{ video_count.value }}: {% endif %}<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_QWEN3_VL = (  # Qwen/Qwen3-VL-2B-Instruct (system/user/assistant branches)
    "{%- set image_count = namespace(value=0) %}{%- set video_count = namespace(value=0) %}"
    "{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' }}"
    "{%- if messages[0].content is string %}{{- messages[0].content }}{%- else %}"
    "{%- for content in messages[0].content %}{%- if 'text' in content %}{{- content.text }}"
    "{%- endif %}{%- endfor %}{%- endif %}{{- '<|im_end|>\\n' }}{%- endif %}"
    "{%- for message in messages %}{%- if message.role == 'user' or message.role == 'assistant' %}"
    "{{- '<|im_start|>' + message.role + '\\n' }}{%- if message.content is string %}"
    "{{- message.content }}{%- else %}{%- for content in message.content %}"
    "{%- if content.type == 'image' or 'image' in content or 'image_url' in content %}"
    "{%- set image_count.value = image_count.value + 1 %}"
    "{%- if add_vision_id %}Picture {{ image_count.value }}: {% endif -%}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{%- elif content.type == 'video' or 'video' in content %}"
    "{%- set video_count.value = video_count.value + 1 %}"
    "{%- if add_vision_id %}Video {{ video_count.value }}: {% endif -%}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{%- elif 'text' in content %}{{- content.text }}{%- endif %}{%- endfor %}{%- endif %}"
    "{{- '<|im_end|>\\n' }}{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

_IDEFICS3_BODY = (
    "{% for message in messages %}{{message['role'] | capitalize}}"
    "{% if message['content'][0]['type'] == 'image' %}{{':'}}{% else %}{{': '}}{% endif %}"
    "{% for line in message['content'] %}{% if line['type'] == 'text' %}{{line['text']}}"
    "{% elif line['type'] == 'image' %}{{ '<image>' }}{% endif %}{% endfor %}"
    "<end_of_utterance>\n{% endfor %}{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}"
)
_SMOLVLM = "<|im_start|>" + _IDEFICS3_BODY  # HuggingFaceTB/SmolVLM-256M-Instruct
_IDEFICS3 = "<|begin_of_text|>" + _IDEFICS3_BODY  # HuggingFaceM4/Idefics3-8B-Llama3

_LLAVA_OV = (  # llava-hf/llava-onevision-qwen2-0.5b-ov-hf
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + ' '}}"
    "{# Render all images first #}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'image') %}"
    "{{ '<image>' }}{% endfor %}"
    "{# Render all video then #}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'video') %}"
    "{{ '<video>' }}{% endfor %}"
    "{# Render all text next #}{% if message['role'] != 'assistant' %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}"
    "{{ '\n' + content['text'] }}{% endfor %}{% else %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}"
    "{% generation %}{{ '\n' + content['text'] }}{% endgeneration %}{% endfor %}{% endif %}"
    "{{'<|im_end|>'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

_INTERNVL = (  # OpenGVLab/InternVL3-1B-hf
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n'}}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for content in message['content'] %}{% if content['type'] == 'image' %}"
    "{{ '<IMG_CONTEXT>\n' }}{% elif content['type'] == 'video' %}{{ '<video>\n' }}"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{{'<|im_end|>\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{'<|im_start|>assistant\n' }}{% endif %}"
)

_GEMMA3 = (  # google/gemma-3-4b-it
    "{{ bos_token }}\n{%- if messages[0]['role'] == 'system' -%}"
    "{%- if messages[0]['content'] is string -%}"
    "{%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}{%- else -%}"
    "{%- set first_user_prefix = messages[0]['content'][0]['text'] + '\n\n' -%}{%- endif -%}"
    '{%- set loop_messages = messages[1:] -%}{%- else -%}{%- set first_user_prefix = "" -%}'
    "{%- set loop_messages = messages -%}{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
    '{{ raise_exception("Conversation roles must alternate user/assistant/user/assistant/...") }}'
    "{%- endif -%}{%- if (message['role'] == 'assistant') -%}{%- set role = \"model\" -%}"
    "{%- else -%}{%- set role = message['role'] -%}{%- endif -%}"
    "{{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else \"\") }}"
    "{%- if message['content'] is string -%}{{ message['content'] | trim }}"
    "{%- elif message['content'] is iterable -%}{%- for item in message['content'] -%}"
    "{%- if item['type'] == 'image' -%}{{ '<start_of_image>' }}"
    "{%- elif item['type'] == 'text' -%}{{ item['text'] | trim }}{%- endif -%}{%- endfor -%}"
    '{%- else -%}{{ raise_exception("Invalid content type") }}{%- endif -%}'
    "{{ '<end_of_turn>\n' }}{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{'<start_of_turn>model\n'}}{%- endif -%}\n"
)

_MLLAMA = (  # meta-llama/Llama-3.2-11B-Vision-Instruct (no tools)
    "{{- bos_token }}{%- if messages[0]['role'] == 'system' %}"
    "{%- set system_message = messages[0]['content']|trim %}"
    '{%- set messages = messages[1:] %}{%- else %}{%- set system_message = "" %}{%- endif %}'
    '{%- if not date_string is defined %}{%- set date_string = "26 Jul 2024" %}{%- endif %}'
    "{% set image_ns = namespace(has_images=false) %}{%- for message in messages %}"
    "{%- for content in message['content'] %}{%- if content['type'] == 'image' %}"
    "{%- set image_ns.has_images = true %}{%- endif %}{%- endfor %}{%- endfor %}"
    '{%- if image_ns.has_images and not system_message == "" %}'
    '{{- raise_exception("Prompting with images is incompatible with system messages.") }}'
    "{%- endif %}{%- if not image_ns.has_images %}"
    '{{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}'
    '{{- "Cutting Knowledge Date: December 2023\\n" }}'
    '{{- "Today Date: " + date_string + "\\n\\n" }}{{- system_message }}'
    '{{- "<|eot_id|>" }}{%- endif %}'
    "{%- for message in messages %}"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}"
    "{%- if message['content'] is string %}{{- message['content'] }}{%- else %}"
    "{%- for content in message['content'] %}{%- if content['type'] == 'image' %}"
    "{{- '<|image|>' }}{%- elif content['type'] == 'text' %}{{- content['text'] }}{%- endif %}"
    "{%- endfor %}{%- endif %}{{- '<|eot_id|>' }}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}"
    "{%- endif %}"
)

_MISTRAL3 = (  # mistralai/Mistral-Small-3.1-24B-Instruct-2503 (default system text shortened)
    '{%- set default_system_message = "You are Mistral Small 3, a Large Language Model." %}'
    "{{- bos_token }}{%- if messages[0]['role'] == 'system' %}"
    "{%- if messages[0]['content'] is string %}{%- set system_message = messages[0]['content'] %}"
    "{%- else %}{%- set system_message = messages[0]['content'][0]['text'] %}{%- endif %}"
    "{%- set loop_messages = messages[1:] %}{%- else %}"
    "{%- set system_message = default_system_message %}{%- set loop_messages = messages %}"
    "{%- endif %}{{- '[SYSTEM_PROMPT]' + system_message + '[/SYSTEM_PROMPT]' }}"
    "{%- for message in loop_messages %}{%- if message['role'] == 'user' %}"
    "{%- if message['content'] is string %}{{- '[INST]' + message['content'] + '[/INST]' }}"
    "{%- else %}{{- '[INST]' }}{%- for block in message['content'] %}"
    "{%- if block['type'] == 'text' %}{{- block['text'] }}"
    "{%- elif block['type'] in ['image', 'image_url'] %}{{- '[IMG]' }}{%- else %}"
    "{{- raise_exception('Only text and image blocks are supported in message content!') }}"
    "{%- endif %}{%- endfor %}{{- '[/INST]' }}{%- endif %}"
    "{%- elif message['role'] == 'assistant' %}{{- message['content'] + eos_token }}"
    "{%- else %}{{- raise_exception('Only user, system and assistant roles are supported!') }}"
    "{%- endif %}{%- endfor %}"
)

_PIXTRAL = (  # mistral-community/pixtral-12b
    '{%- if messages[0]["role"] == "system" %}'
    '{%- set system_message = messages[0]["content"] %}{%- set loop_messages = messages[1:] %}'
    "{%- else %}{%- set loop_messages = messages %}{%- endif %}\n\n{{- bos_token }}"
    "{%- for message in loop_messages %}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{- raise_exception('After the optional system message, conversation roles must alternate "
    'user/assistant/user/assistant/...\') }}{%- endif %}{%- if message["role"] == "user" %}'
    "{%- if loop.last and system_message is defined %}"
    '{{- "[INST]" + system_message + "\\n\\n" }}{%- else %}{{- "[INST]" }}{%- endif %}'
    '{%- if message["content"] is not string %}{%- for chunk in message["content"] %}'
    '{%- if chunk["type"] == "text" %}{{- chunk["text"] }}'
    '{%- elif chunk["type"] == "image" %}{{- "[IMG]" }}{%- else %}'
    '{{- raise_exception("Unrecognized content type!") }}{%- endif %}{%- endfor %}'
    '{%- else %}{{- message["content"] }}{%- endif %}{{- "[/INST]" }}'
    '{%- elif message["role"] == "assistant" %}{{- message["content"] + eos_token}}'
    '{%- else %}{{- raise_exception("Only user and assistant roles are supported, with the '
    'exception of an initial optional system message!") }}{%- endif %}{%- endfor %}'
)

PALIGEMMA_TEMPLATE = (  # not on the Hub: the fallback the README documents (images, then text)
    "{% for message in messages %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image>{% endif %}{% endfor %}"
    "{% for part in message['content'] %}{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% endif %}{% endfor %}{% endfor %}"
)
