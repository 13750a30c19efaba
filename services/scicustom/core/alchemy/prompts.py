"""The AlchemyBench prompts, from the paper's appendix: literature classification (Figure 10),
recipe extraction (Figure 11), retrieval-augmented prediction (Figure 13) and the LLM-as-a-Judge
(Figure 14). The judge's user message lays out the three inputs Figure 14 names."""
# ruff: noqa: E501  (the prompts are the paper's text, line for line)

from __future__ import annotations

CLASSIFICATION_PROMPT = """Analyze the given scientific text and provide classifications in the following order:

1. Synthesis Recipe Classification:
Determine if the text contains detailed synthesis procedures.
Return only "YES" or "NO".
If "NO", stop here. If "YES", continue with the following classifications.

2. Target Classification:
Classify the synthesized target as one of:
- Material (e.g., nanoparticles, compounds, composites)
- Device (e.g., sensors, batteries, transistors)
- Molecule (e.g., organic compounds, polymers)

3. Material Identification:
Provide:
- Chemical formula (if applicable)
- Material name
- Material class (e.g., metal oxide, polymer, semiconductor)

4. Application Domain:
List the primary applications mentioned in the text:
- Energy (e.g., batteries, solar cells)
- Electronics (e.g., transistors, sensors)
- Healthcare (e.g., drug delivery, imaging)
- Environmental (e.g., catalysis, filtration)
- Others (specify)

5. Synthesis Process Classification:
Classify the given synthesis method into one of these categories. If it combines multiple methods, label it as "Hybrid". If it doesnt fit any category, label it as "Others".

Categories:
1. Solid-State: solid-state reaction, ceramic method, sintering
2. Vapor Deposition: CVD, PVD, sputtering, evaporation
3. Mechanochemical: ball milling, mechanical alloying
4. Hydrothermal: solvothermal, pressurized solution
5. Pyrolysis: thermal decomposition, spray pyrolysis
6. Melt Quenching: rapid solidification, glass formation
7. Electrochemical: electrodeposition, anodization
8. Self-Assembly: molecular assembly, biomineralization
9. Solution-Based: precipitation, sol-gel, wet chemical synthesis
10. Biological: biomimetic, enzyme-mediated, microbial synthesis
11. Hybrid: combination of multiple methods
12. Others: novel or unconventional methods


Format the output as a structured list only if Step 1 is "YES".
For not available, use "N/A".
Do not provide explanations or additional commentary.

Example Output:
For a paper titled "Hydrothermal Synthesis of LiFePO4/C Composites for High-Performance Lithium-Ion Batteries":

1. Synthesis Recipe: YES
2. Target: Material
3. Material Identification:
- Chemical Formula: LiFePO4/C
- Material Name: Carbon-coated lithium iron phosphate
- Material Class: Phosphate composite
4. Application Domain: Energy (lithium-ion batteries)
5. Synthesis Process: Hydrothermal (solvothermal)


Scientific Paper:
{text}"""

EXTRACTION_PROMPT = """You are a materials science expert. Your task is to extract ONLY the explicitly stated synthesis information from the provided research paper. Do not generate, assume, or infer any information not directly presented in the paper.
If the provided paper does not contain any synthesis information, please indicate "NOT A MATERIAL SYNTHESIS PAPER" and do not provide any further details.

## Key Contributions
Summarize the key contributions of the paper:
- Novel materials or compounds: <summary>
- Unique synthesis methods: <summary>
- Specific applications or domains: <summary>

## Materials
Extract and list:
- All precursor materials with:
 * Exact quantities and concentrations
 * Molar ratios or stoichiometric proportions
 * Purity grades and specifications
 * Supplier information if provided
- Solvents, reagents, catalysts, and any other materials such as carrier gases.

## Synthesis Equipment
- All equipment and apparatus with:
 * Model numbers if specified
 * Operating parameters
 * Special configurations or modifications

## Synthesis Procedure
Extract and organize:
- Chronological step-by-step synthesis method
- All processing parameters:
 * Temperature ranges and ramp rates
 * Time durations for each step
 * Pressure conditions
 * pH values if applicable
 * Mixing speeds and durations
- Critical control points and special conditions

## Characterization Methods and Equipment
List all:
- Analytical techniques used
- Specific measurement conditions
- Sample preparation methods
- Equipment models and settings
- Standards or references used

## Product Characteristics
Document:
- Final product properties and specifications (include both numerical values and literal descriptions if provided)
- Yield calculations and actual yields
- Purity levels and impurity content
- Performance metrics with measured values
- Morphological characteristics

IMPORTANT RULES:
1. DO NOT generate or assume any missing information
2. If specific details are not mentioned in the paper, indicate "N/A"
3. Use exact numbers and units as presented in the paper
4. Maintain original measurement units
5. Quote unusual or specific procedures directly when necessary
6. Format all information using proper markdown with headers (##) and bullet points

Remember: Accuracy and authenticity are crucial. Only include information explicitly stated in the paper.

Scientific Paper:
{text}"""

PREDICTION_PROMPT = """You are an expert in material science and chemical synthesis. Your task is to design a detailed material synthesis recipe, considering the following **key contributions**:
Your output should follow the exact structure and format of the below references. Provide precise details for each section, including materials, equipment, and step-by-step procedures.

Here are recipes from research papers with similar contributions.
-- References --
{references}

-- Prediction Input --
Based on these references, predict the synthesis recipe for the given key contributions:
{contributions}"""

JUDGE_SYSTEM_PROMPT = """You are an expert materials scientist tasked with evaluating an AI-generated synthesis recipe. You will be provided with:
1. Target material description
2. AI-generated recipe
3. Ground truth recipe from literature

Please evaluate the AI-generated recipe according to the following criteria on a scale of 1-5 (1.0: poor, 5.0: excellent, 0.5 step). Provide detailed justification for each score.

Guidelines for evaluation:

1. Materials
- Appropriateness: Are the selected materials suitable for the target synthesis?

2. Equipment
- Appropriateness: Is the selected equipment suitable?

3. Procedure
- Completeness: Are all necessary steps included with sufficient detail?
- Similarity: How closely does it match the ground truth procedure?
- Feasibility: Can this procedure be realistically executed in a lab?

4. Characterization
- Appropriateness: Are the metrics suitable for validating success?
- Similarity: How well do predicted properties match actual results?

Your Output format must be as following:
1. Step-by-step reasoning first
2. JSON score result
```json
{
 "materials_appropriateness_score": float,
 "equipment_appropriateness_score": float,
 "procedure_completeness_score": float,
 "procedure_similarity_score": float,
 "procedure_feasibility_score": float,
 "characterization_appropriateness_score": float,
 "characterization_similarity_score": float,
 "overall_score": float
}
```"""

JUDGE_USER_TEMPLATE = """Please evaluate the following:

Target Material:
{target}

AI-Generated Recipe:
{prediction}

Ground Truth Recipe:
{ground_truth}"""

JUDGE_FORMAT_REMINDER = """Your reply could not be read: it must end with a ```json block holding all eight keys, each a number from 1.0 to 5.0 in 0.5 steps:
materials_appropriateness_score, equipment_appropriateness_score, procedure_completeness_score, procedure_similarity_score, procedure_feasibility_score, characterization_appropriateness_score, characterization_similarity_score, overall_score.
Reply again: step-by-step reasoning first, then the JSON score result."""
